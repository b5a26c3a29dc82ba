import FiberRuntime
import Foundation

/// An HTTP request as an immutable value: every combinator (`method`,
/// `header`, `query`, `jsonBody`, `body`, `timeout`, `meta`) returns a changed
/// copy and leaves the original as it was.
///
/// ```swift
/// let request = FiberRequest(url: "https://api.example.com/search")
///     .method(.post)
///     .header("Authorization", "Bearer tok")
///     .query("q", "swift")
///     .jsonBody(SearchParams(filter: "active"))
///     .timeout(30)
/// ```
public struct FiberRequest: Sendable {
    /// The URL, query included.
    public internal(set) var url: URL {
        get { location.url }
        set { location = RequestURL(newValue) }
    }
    /// `url` as parsed once (its text and target read without making a Foundation `URL`).
    var location: RequestURL
    /// The method (`GET` unless set).
    public internal(set) var httpMethod: HTTPMethod
    /// The header fields (ordered, case-insensitive names).
    public internal(set) var headers: HTTPHeaders
    /// The body, if it is in memory.
    public internal(set) var body: Data?
    /// The body, if it is read as it is sent (a file, a stream, a multipart form):
    /// set instead of `body` by `body(_:contentType:)` with an `HTTPRequestBody`,
    /// `body(fileAt:contentType:)` and `multipartBody(_:)`.
    public internal(set) var bodyStream: HTTPRequestBody?
    /// Called as the body goes out (see `onUploadProgress(every:_:)`); never sent.
    var uploadProgress: ProgressReporter?
    /// The longest the whole request may take, in seconds (nil: the client's timeout, if any).
    public internal(set) var timeout: TimeInterval?
    /// Free-form values for interceptors (`.meta("cache", "skip")`); never sent.
    public internal(set) var metadata: [String: String]
    /// When the request must be done by: set by `Fiber.send` from the timeout when it starts,
    /// read by interceptors that wait (Retry, RateLimit) and by the transport.
    public internal(set) var deadline: ContinuousClock.Instant? {
        get { deadlineReading?.instant }
        set { deadlineReading = newValue.map(MonotonicTime.init) }
    }

    /// `deadline` as a `MonotonicTime` reading: stored so, a `FiberRequest` (and a
    /// `FiberResponse` with it) has a size known when compiled, and the async code
    /// that holds one allocates nothing for it.
    var deadlineReading: MonotonicTime?

    /// The loop `Fiber.send` runs the request's pipeline on, when its transport
    /// prefers one; passed to the transport so that it does not choose again.
    var eventLoop: EventLoop?

    /// The trace the request belongs to, set by `Fiber.send` (the caller's
    /// `TraceContext.traceID`, or a new one): what the transport step and the
    /// response read, so that the task-local need not be bound for them.
    var traceID = ""

    /// A failure found while building (bad URL, body that did not encode), thrown by `send`.
    var buildError: FiberError?

    /// What the request changes of its client's behaviour (retry, interceptors, cache, decoder).
    var overrides: RequestOverrides?

    /// A `GET` request to `url`. A string that is not an absolute URL makes
    /// `Fiber.send` throw `FiberError.invalidURL` with it.
    public init(url: String) {
        if let location = RequestURL(parsing: url) {
            self.init(location: location)
        } else {
            self.init(location: RequestURL(URL(string: "invalid:") ?? URL(fileURLWithPath: "/")))
            buildError = .invalidURL(url)
        }
    }

    /// A request to `url`.
    public init(url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil) {
        self.init(location: RequestURL(url), method: method, headers: headers, body: body)
        if !RequestURL.isAbsolute(url) { buildError = .invalidURL(url.absoluteString) }
    }

    private init(location: RequestURL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil) {
        self.location = location
        self.httpMethod = method
        self.headers = headers
        self.body = body
        self.timeout = nil
        self.metadata = [:]
    }

    /// The remaining time before `deadline`, if there is one (zero once past).
    public var remainingTime: Duration? {
        deadlineReading.map { max(.zero, $0 - MonotonicTime.now()) }
    }
}

extension FiberRequest {
    /// The same request with another method.
    public func method(_ method: HTTPMethod) -> FiberRequest {
        var copy = self
        copy.httpMethod = method
        return copy
    }

    /// The same request with the header `name` set to `value` (replacing any field of that name, in any case).
    public func header(_ name: String, _ value: String) -> FiberRequest {
        var copy = self
        copy.headers.replaceOrAdd(name: name, value: value)
        return copy
    }

    /// The same request with each of `headers` set as `header(_:_:)` does.
    public func headers(_ headers: [String: String]) -> FiberRequest {
        var copy = self
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { copy.headers.replaceOrAdd(name: name, value: value) }
        return copy
    }

    /// The same request with `field` set (replacing any field of its name):
    /// `.header(.authorization(bearerToken: token))`.
    public func header(_ field: HTTPHeader) -> FiberRequest {
        header(field.name, field.value)
    }

    /// The same request with each of `headers` set, in their order, as `header(_:)` does;
    /// a name repeated in `headers` is sent with each of its values.
    public func headers(_ headers: HTTPHeaders) -> FiberRequest {
        var copy = self
        for name in Set(headers.map { $0.name.lowercased() }) { copy.headers.remove(name: name) }
        for field in headers { copy.headers.append(name: field.name, value: field.value) }
        return copy
    }

    /// The same request without the header `name` (any case).
    public func removingHeader(_ name: String) -> FiberRequest {
        var copy = self
        copy.headers.remove(name: name)
        return copy
    }

    /// The same request with `name=value` appended to the query (both percent-encoded).
    public func query(_ name: String, _ value: String) -> FiberRequest {
        query([URLQueryItem(name: name, value: value)])
    }

    /// The same request with `items` appended to the query, in order (percent-encoded).
    public func query(_ items: [URLQueryItem]) -> FiberRequest {
        guard !items.isEmpty, buildError == nil else { return self }
        var copy = self
        // A plain URL has no fragment: its query is the text after `?`, extended in place.
        if location.target != nil {
            var text = location.text
            if let mark = text.firstIndex(of: "?") {
                Self.append(items, to: &text, separated: text.index(after: mark) != text.endIndex)
            } else {
                text += "?"
                Self.append(items, to: &text, separated: false)
            }
            if let extended = RequestURL(parsing: text) {
                copy.location = extended
                return copy
            }
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return self }
        var query = components.percentEncodedQuery ?? ""
        Self.append(items, to: &query, separated: !query.isEmpty)
        components.percentEncodedQuery = query
        if let url = components.url { copy.url = url }
        return copy
    }

    /// Appends `items` percent-encoded to a query, after an `&` when it has fields already.
    private static func append(_ items: [URLQueryItem], to query: inout String, separated: Bool) {
        var separated = separated
        for item in items {
            if separated { query += "&" }
            query += QueryEncoding.encode(item.name)
            if let value = item.value { query += "=" + QueryEncoding.encode(value) }
            separated = true
        }
    }

    /// The same request with `value` encoded as its JSON body and `Content-Type`
    /// set to `defaults.jsonContentType`. An encoding failure is thrown by
    /// `Fiber.send` as `FiberError.encodingError`.
    public func jsonBody<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder(),
                                       defaults: FiberDefaults = .shared) -> FiberRequest {
        do {
            return body(try encoder.encode(value), contentType: defaults.jsonContentType)
        } catch {
            var copy = self
            copy.buildError = copy.buildError ?? .encodingError(underlying: error)
            return copy
        }
    }

    /// The same request with `data` as its body, and `Content-Type` set when given.
    public func body(_ data: Data, contentType: String? = nil) -> FiberRequest {
        var copy = self
        copy.body = data
        copy.bodyStream = nil
        if let contentType { copy.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        return copy
    }

    /// The same request with `text` as its UTF-8 body, and `Content-Type` set when given.
    public func body(_ text: String, contentType: String? = "text/plain; charset=utf-8") -> FiberRequest {
        body(Data(text.utf8), contentType: contentType)
    }

    /// The same request without a body.
    public func removingBody() -> FiberRequest {
        var copy = self
        copy.body = nil
        copy.bodyStream = nil
        return copy
    }

    /// The same request with a timeout, in seconds, for the whole request (retries included).
    public func timeout(_ seconds: TimeInterval) -> FiberRequest {
        var copy = self
        copy.timeout = seconds
        return copy
    }

    /// The same request with the metadata `key` set to `value`, for interceptors.
    public func meta(_ key: String, _ value: String) -> FiberRequest {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    /// The same request with another URL (used by interceptors that rewrite where a request goes).
    public func url(_ url: URL) -> FiberRequest {
        var copy = self
        copy.url = url
        if copy.buildError.map({ if case .invalidURL = $0 { true } else { false } }) == true { copy.buildError = nil }
        return copy
    }
}

/// Percent-encoding of query names and values: everything but RFC 3986's
/// unreserved characters, so `+`, `&` and `=` inside a value survive.
enum QueryEncoding {
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

extension FiberRequest: CustomReflectable {
    /// What a printed request shows: the parts a caller sets, the URL as its text.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": location.text, "httpMethod": httpMethod, "headers": headers,
                                "body": bodyStream.map { $0 as Any } ?? body as Any,
                                "timeout": timeout as Any, "metadata": metadata], displayStyle: .struct)
    }
}
