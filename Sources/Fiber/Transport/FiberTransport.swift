import FiberRuntime
import Foundation

/// What carries a request to a server and its response back: the seam between
/// Fiber's pipeline and the network. The default is `HTTPTransport` (the
/// runtime's HTTP/1.1 client); tests use `MockTransport` from FiberTesting;
/// anything else can be plugged in.
///
/// ```swift
/// struct MyCustomTransport: FiberTransport {
///     func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) { … }
/// }
/// ```
///
/// What a transport throws reaches interceptors and callers as a `FiberError`
/// (see `FiberError.init(transportFailure:)`).
public protocol FiberTransport: Sendable {
    /// Sends `request` and returns the whole body and the response head.
    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse)

    /// Sends `request` and returns once the head is in, the body streaming.
    /// The default sends with `send(_:)` and streams the body as one chunk.
    func stream(_ request: TransportRequest) async throws -> (FiberBodyStream, TransportResponse)

    /// The executor a request's pipeline should run on, so that the transport
    /// is reached without a thread hop (default: none, the caller's).
    func executorPreference() -> (any TaskExecutor)?
}

extension FiberTransport {
    /// Sends with `send(_:)` and streams the whole body as one chunk.
    /// - Throws: what `send(_:)` throws.
    public func stream(_ request: TransportRequest) async throws -> (FiberBodyStream, TransportResponse) {
        let (data, response) = try await send(request)
        return (FiberBodyStream(data: data, trailers: response.trailers), response)
    }

    /// None: the pipeline runs on the caller's executor.
    public func executorPreference() -> (any TaskExecutor)? { nil }
}

/// A request as a transport sees it: shaped like Foundation's `URLRequest`, so
/// code written against that reads the same (`url?.path`, `httpMethod`,
/// `value(forHTTPHeaderField:)`), without FoundationNetworking.
public struct TransportRequest: Sendable {
    /// Where the request goes.
    public var url: URL? {
        get { location?.url }
        set { location = newValue.map(RequestURL.init) }
    }
    /// `url` as the request parsed it once: the HTTP transport reads its target from here.
    var location: RequestURL?
    /// The method, such as `GET`.
    public var httpMethod: String?
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, if it is in memory.
    public var httpBody: Data?
    /// A body sent as it is read, from an `AsyncSequence` of byte chunks or
    /// a file, instead of `httpBody`.
    public var httpBodyStream: HTTPRequestBody?
    /// Called by the transport as the body goes out, with the bytes sent and the
    /// total when known (the request's `onUploadProgress`, at a bounded rate).
    public var uploadProgress: (@Sendable (_ sent: Int, _ total: Int?) -> Void)?
    /// When the request must be done by, if it has a deadline: one instant
    /// from the caller's timeout down to the socket's timer.
    public var deadline: ContinuousClock.Instant? {
        get { deadlineReading?.instant }
        set { deadlineReading = newValue.map(MonotonicTime.init) }
    }
    /// Seconds left before `deadline` (zero once past); setting it sets the deadline that far from now.
    public var timeoutInterval: TimeInterval? {
        get { deadlineReading.map { max(.zero, $0 - MonotonicTime.now()).seconds } }
        set { deadlineReading = newValue.map { MonotonicTime.now() + .seconds(clamping: $0) } }
    }
    /// `deadline` as stored (a size known when compiled: see `MonotonicTime`).
    package var deadlineReading: MonotonicTime?
    /// The client's cookie jar (`Fiber.Configuration.cookieJar`), if it has one. A transport
    /// asks it for the cookies of each request it sends, redirects included, and gives it
    /// each response's `Set-Cookie` fields; `HTTPTransport`, `MockTransport` and the
    /// WebSocket handshake do. A transport that ignores it sends no stored cookies.
    public var cookies: (any HTTPCookieHandler)?
    /// The proxy for this request instead of the transport's own, when the request
    /// chose one (`FiberRequest.proxy(_:)`; nil: the transport's). `HTTPTransport`
    /// applies it; a transport that cannot reach proxies may ignore it.
    public var proxy: ProxyConfiguration?
    /// The loop the request's pipeline runs on, chosen once by `Fiber` from
    /// the transport's `executorPreference()`: the HTTP transport sends there.
    package var eventLoop: EventLoop?

    /// A request from its parts.
    public init(url: URL?, httpMethod: String? = "GET", headers: HTTPHeaders = [:], httpBody: Data? = nil,
                timeoutInterval: TimeInterval? = nil) {
        self.location = url.map(RequestURL.init)
        self.httpMethod = httpMethod
        self.headers = headers
        self.httpBody = httpBody
        self.timeoutInterval = timeoutInterval
    }

    /// A request to `location` (a request's URL as it parsed it), with its deadline and loop.
    init(location: RequestURL, httpMethod: String, headers: HTTPHeaders, httpBody: Data?, deadlineReading: MonotonicTime?,
         eventLoop: EventLoop?) {
        self.location = location
        self.httpMethod = httpMethod
        self.headers = headers
        self.httpBody = httpBody
        self.deadlineReading = deadlineReading
        self.eventLoop = eventLoop
    }

    /// The first value of the header `field`, in any case.
    public func value(forHTTPHeaderField field: String) -> String? { headers.first(name: field) }

    /// The header fields as a dictionary (the last value of a repeated name wins).
    public var allHTTPHeaderFields: [String: String]? {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

/// A response head as a transport returns it, shaped like `HTTPURLResponse`.
public struct TransportResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The header fields as received.
    public var headers: HTTPHeaders
    /// The URL that answered (after redirects), if known.
    public var url: URL? {
        get { location?.url }
        set { location = newValue.map(RequestURL.init) }
    }
    /// `url` as parsed (the request's own when it was not redirected: no second parse).
    var location: RequestURL?
    /// The HTTP version the response came over, when the transport knows it.
    public var httpVersion: HTTPVersion?
    /// The trailer fields that followed the body of a response from `send(_:)`;
    /// nil when there were none. (A streamed body's come with the body:
    /// `FiberBodyStream.trailers()`.)
    public var trailers: HTTPHeaders?

    /// A response head from its parts.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.location = url.map(RequestURL.init)
    }

    /// A response head that answered from `location`.
    init(statusCode: Int, headers: HTTPHeaders, location: RequestURL?, httpVersion: HTTPVersion? = nil,
         trailers: HTTPHeaders? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.location = location
        self.httpVersion = httpVersion
        self.trailers = trailers
    }

    /// The first value of the header `field`, in any case.
    public func value(forHTTPHeaderField field: String) -> String? { headers.first(name: field) }
}
