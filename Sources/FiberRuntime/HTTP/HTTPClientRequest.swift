import Foundation
import Synchronization

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
    var isIdempotent: Bool { Self.isIdempotent(method) }

    /// RFC 9110 §9.2.2: whether `method` is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE).
    package static func isIdempotent(_ method: String) -> Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }

    /// RFC 9110 §9.2.1: whether `method` is safe, read-only (GET, HEAD, OPTIONS, TRACE).
    package static func isSafe(_ method: String) -> Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE": true
        default: false
        }
    }
}

/// The body of a request: bytes in memory, a stream of chunks, a file, or a
/// sequence of those sent one after the other (a multipart form).
///
/// A body is *replayable* when it can be sent again from its start: bytes,
/// files, streams made by a function (called once per attempt) and sequences
/// of replayable parts are. A stream given as a sequence (`stream(length:once:)`)
/// is read once: a redirect that would send it again (307, 308) is not
/// followed, its 3xx is the response, and a request is not retried on a new
/// connection once its reading began.
public struct HTTPRequestBody: Sendable {
    enum Source: Sendable {
        case bytes([UInt8])
        case data(Data)
        case stream(length: Int?, @Sendable () -> AnyByteChunks)
        case file(path: String)
        case parts([HTTPRequestBody])
    }

    let source: Source
    /// Set for a stream read once: whether its reading began.
    let oneShot: OneShotChunks?

    private init(source: Source, oneShot: OneShotChunks? = nil) {
        self.source = source
        self.oneShot = oneShot
    }

    /// A body from bytes in memory.
    public static func bytes(_ bytes: [UInt8]) -> HTTPRequestBody { HTTPRequestBody(source: .bytes(bytes)) }

    /// A body from `Data` in memory, written as it is (never copied into an array first).
    public static func data(_ data: Data) -> HTTPRequestBody { HTTPRequestBody(source: .data(data)) }

    /// A body from a string's UTF-8 bytes.
    public static func string(_ text: String) -> HTTPRequestBody { .bytes(Array(text.utf8)) }

    /// A body streamed from an async sequence of chunks: sent with `Content-Length`
    /// when `length` is known, else chunked. `makeChunks` is called once per attempt
    /// (a redirect or retry that resends the body calls it again), so the body is replayable.
    public static func stream<S: AsyncSequence & Sendable>(
        length: Int? = nil, _ makeChunks: @escaping @Sendable () -> S
    ) -> HTTPRequestBody where S.Element == [UInt8] {
        HTTPRequestBody(source: .stream(length: length) { AnyByteChunks(makeChunks()) })
    }

    /// A body streamed from `chunks`, which is read once: not replayable (see the type's
    /// overview). Sent with `Content-Length` when `length` is known, else chunked.
    public static func stream<S: AsyncSequence & Sendable>(length: Int? = nil, once chunks: S) -> HTTPRequestBody
        where S.Element == [UInt8] {
        let oneShot = OneShotChunks(AnyByteChunks(chunks))
        return HTTPRequestBody(source: .stream(length: length) { oneShot.take() }, oneShot: oneShot)
    }

    /// A body read from the file at `path` in 256 KiB pieces through libuv's
    /// file-system calls (never whole into memory), sent with its size as `Content-Length`.
    /// A file that is missing or unreadable, or whose size changes while it is sent,
    /// fails the request with `HTTPClientError` `.requestBody` naming the path.
    public static func file(path: String) -> HTTPRequestBody { HTTPRequestBody(source: .file(path: path)) }

    /// `parts` sent one after the other as one body: with `Content-Length` when every
    /// part's length is known when the request starts (files are measured then), else chunked.
    /// Replayable when every part is.
    public static func concatenating(_ parts: [HTTPRequestBody]) -> HTTPRequestBody {
        HTTPRequestBody(source: .parts(parts))
    }

    /// The path of a body that is one file, for a rendering that lets another program read it.
    package var filePath: String? {
        if case .file(let path) = source { path } else { nil }
    }

    /// Whether the body can be sent again from its start (see the type's overview).
    public var isReplayable: Bool {
        switch source {
        case .parts(let parts): parts.allSatisfy(\.isReplayable)
        default: oneShot == nil
        }
    }

    /// The length in bytes when known without reading anything: the size of bytes in
    /// memory, the declared length of a stream, the sum over parts; nil for a file
    /// (measured when the request starts) or a stream of unknown length.
    public var knownLength: Int? {
        switch source {
        case .bytes(let bytes): bytes.count
        case .data(let data): data.count
        case .stream(let length, _): length
        case .file: nil
        case .parts(let parts):
            parts.reduce(0 as Int?) { sum, part in sum.flatMap { s in part.knownLength.map { s + $0 } } }
        }
    }

    /// Whether a one-shot stream in the body has begun to be read (it cannot be sent again).
    var isSpent: Bool {
        switch source {
        case .parts(let parts): parts.contains(where: \.isSpent)
        default: oneShot?.isTaken ?? false
        }
    }
}

/// The chunks of a one-shot stream body, handed out once.
final class OneShotChunks: Sendable {
    private let chunks: AnyByteChunks
    private let taken = Atomic(false)

    init(_ chunks: AnyByteChunks) { self.chunks = chunks }

    var isTaken: Bool { taken.load(ordering: .acquiring) }

    /// The chunks the first time; afterwards a sequence that fails with `.requestBody`.
    func take() -> AnyByteChunks {
        guard taken.exchange(true, ordering: .acquiringAndReleasing) else { return chunks }
        return AnyByteChunks(SpentChunks())
    }

    private struct SpentChunks: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        struct AsyncIterator: AsyncIteratorProtocol {
            mutating func next() async throws -> [UInt8]? {
                throw HTTPClientError(.requestBody, "a body stream that is read once cannot be sent again")
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }
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
