import FiberRuntime

/// Raised inside the server when a response reaches its cut-off point
/// (`closingMidBody`, `resettingMidBody`); the connection then closes or resets.
struct ResponseCut: Error {
    let reset: Bool
}

/// Writes one response's bytes to a connection, applying its delivery
/// faults: a drip (a few bytes per write, with pauses) and a cut after so
/// many body bytes. Pinned to the connection's loop, like the stream.
actor ResponseWire {
    nonisolated let stream: SocketStream
    private let drip: (bytes: Int, interval: Duration)?
    private let cutWithReset: Bool
    /// Body bytes still allowed before the cut; nil for no cut.
    private var budget: Int?
    private var isCut = false
    private var sentAnything = false

    nonisolated var unownedExecutor: UnownedSerialExecutor { stream.loop.executor }

    init(stream: SocketStream, delivery: TestResponse.Delivery) {
        self.stream = stream
        self.drip = delivery.drip
        self.budget = delivery.cut?.afterBodyBytes
        self.cutWithReset = delivery.cut?.reset ?? false
    }

    /// Writes a head and the start of the body (in one write when nothing is dripped or cut).
    ///
    /// - Throws: `TransportError`; `ResponseCut` when the cut-off point is reached.
    func write(head: [UInt8], body: [UInt8]) async throws {
        if drip == nil, budget == nil {
            try await stream.write(contentsOf: [head, body])
        } else {
            try await send(head)
            try await writeBody(body)
        }
    }

    /// Writes head bytes (never cut).
    ///
    /// - Throws: `TransportError`.
    func writeHead(_ head: [UInt8]) async throws {
        try await send(head)
    }

    /// Writes body bytes as they go on the wire, up to the cut-off point.
    ///
    /// - Throws: `TransportError`; `ResponseCut` when the cut-off point is reached (now or before).
    func writeBody(_ bytes: [UInt8]) async throws {
        if isCut { throw ResponseCut(reset: cutWithReset) }
        guard let remaining = budget else {
            try await send(bytes)
            return
        }
        if bytes.count < remaining {
            budget = remaining - bytes.count
            try await send(bytes)
            return
        }
        budget = 0
        isCut = true
        try await send(Array(bytes.prefix(remaining)))
        throw ResponseCut(reset: cutWithReset)
    }

    private func send(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        guard let drip else {
            try await stream.write(bytes)
            return
        }
        var offset = 0
        while offset < bytes.count {
            if sentAnything { try await stream.loop.sleep(for: drip.interval) }
            let end = min(offset + drip.bytes, bytes.count)
            try await stream.write(Array(bytes[offset..<end]))
            sentAnything = true
            offset = end
        }
    }
}

/// What a streamed body (`TestResponse.Body.stream`) writes through: each
/// `write` is one chunk of the chunked body (or plain bytes for an HTTP/1.0
/// client, whose body is then ended by closing the connection).
public struct TestBodyWriter: Sendable {
    let wire: ResponseWire
    let chunked: Bool

    /// The loop the connection runs on.
    public var loop: EventLoop { wire.stream.loop }

    /// Sends `bytes` as one chunk; empty arrays are skipped (an empty chunk would end the body).
    ///
    /// - Throws: `TransportError` when the client has gone; an internal error when
    ///   the response is cut (`closingMidBody`). Let it propagate: the server then
    ///   closes the connection as the response asked.
    public func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await wire.writeBody(chunked ? ChunkedCoding.chunk(bytes) : bytes)
    }

    /// Sends the UTF-8 bytes of `text` as one chunk.
    ///
    /// - Throws: as `write(_:)` for bytes.
    public func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }

    /// Waits `duration`, timed by the connection's loop.
    ///
    /// - Throws: `CancellationError` when the server shuts down meanwhile; `EventLoopError.shutdown`.
    public func sleep(for duration: Duration) async throws {
        try await loop.sleep(for: duration)
    }
}

/// The chunked transfer coding (RFC 9112 §7.1).
enum ChunkedCoding {
    /// One chunk: size in hex, CRLF, data, CRLF.
    static func chunk(_ data: [UInt8]) -> [UInt8] {
        Array(String(data.count, radix: 16).utf8) + [0x0D, 0x0A] + data + [0x0D, 0x0A]
    }

    /// The last chunk, the trailer fields, and the final CRLF.
    static func end(trailers: HTTPHeaders) -> [UInt8] {
        var out = Array("0\r\n".utf8)
        for field in trailers { out += "\(field.name): \(field.value)\r\n".utf8 }
        out += [0x0D, 0x0A]
        return out
    }

    /// A whole chunked body: every non-empty chunk, then the end.
    static func body(_ chunks: [[UInt8]], trailers: HTTPHeaders) -> [UInt8] {
        chunks.filter { !$0.isEmpty }.flatMap(chunk) + end(trailers: trailers)
    }
}
