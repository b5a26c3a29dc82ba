import Foundation

/// A request for `HTTPClient`: method, URL, headers and body.
public struct HTTPClientRequest: Sendable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// Where the request goes.
    public var target: HTTPTarget
    /// Header fields; `Host`, `Content-Length`/`Transfer-Encoding` and
    /// `Accept-Encoding` are added by the client when absent.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: HTTPRequestBody?

    /// A request to `url`.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` if `url` is not an absolute http(s) URL.
    public init(url: String, method: String = "GET", headers: HTTPHeaders = [:], body: HTTPRequestBody? = nil) throws(HTTPClientError) {
        self.init(target: try HTTPTarget(url), method: method, headers: headers, body: body)
    }

    /// A request to `target`.
    public init(target: HTTPTarget, method: String = "GET", headers: HTTPHeaders = [:], body: HTTPRequestBody? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// RFC 9110 §9.2.2: the methods a client may retry without asking.
    var isIdempotent: Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }
}

/// The body of a request.
public struct HTTPRequestBody: Sendable {
    enum Source: Sendable {
        case bytes([UInt8])
        case data(Data)
        case stream(length: Int?, @Sendable () -> AnyByteChunks)
        case file(path: String)
    }

    let source: Source

    /// A body from bytes in memory.
    public static func bytes(_ bytes: [UInt8]) -> HTTPRequestBody { HTTPRequestBody(source: .bytes(bytes)) }

    /// A body from `Data` in memory, written as it is (never copied into an array first).
    public static func data(_ data: Data) -> HTTPRequestBody { HTTPRequestBody(source: .data(data)) }

    /// A body from a string's UTF-8 bytes.
    public static func string(_ text: String) -> HTTPRequestBody { .bytes(Array(text.utf8)) }

    /// A body streamed from an async sequence of chunks: sent with `Content-Length`
    /// when `length` is known, else chunked. `makeChunks` is called once per attempt
    /// (a redirect or retry that resends the body calls it again).
    public static func stream<S: AsyncSequence & Sendable>(
        length: Int? = nil, _ makeChunks: @escaping @Sendable () -> S
    ) -> HTTPRequestBody where S.Element == [UInt8] {
        HTTPRequestBody(source: .stream(length: length) { AnyByteChunks(makeChunks()) })
    }

    /// A body read from the file at `path` in 64 KiB pieces through libuv's
    /// file-system calls (never whole into memory), sent with its size as `Content-Length`.
    public static func file(path: String) -> HTTPRequestBody { HTTPRequestBody(source: .file(path: path)) }
}

/// A type-erased async sequence of byte chunks.
public struct AnyByteChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    private let make: @Sendable () -> AsyncIterator

    init<S: AsyncSequence & Sendable>(_ base: S) where S.Element == [UInt8] {
        make = { AsyncIterator(base.makeAsyncIterator()) }
    }

    public func makeAsyncIterator() -> AsyncIterator { make() }

    /// Iterates the wrapped sequence.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var nextChunk: () async throws -> [UInt8]?
        init<I: AsyncIteratorProtocol>(_ base: I) where I.Element == [UInt8] {
            var iterator = base
            nextChunk = { try await iterator.next() }
        }
        public mutating func next() async throws -> [UInt8]? { try await nextChunk() }
    }
}
