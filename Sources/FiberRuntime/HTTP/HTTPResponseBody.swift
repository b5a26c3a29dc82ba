/// A response body streamed as it arrives, as an `AsyncSequence` of byte
/// chunks. When the consumer falls behind by the high watermark, the
/// connection stops reading its socket until the consumer catches up.
///
/// Dropping every copy of an unfinished body closes its connection (it cannot
/// be reused half-read). A compressed body is inflated as the consumer reads,
/// so backpressure reaches the socket just the same.
public struct HTTPResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let buffer: ResponseBodyBuffer
    private let state: State

    /// Alive as long as some copy of the body or an iterator is; its end tells the connection.
    final class Lifetime: Sendable {
        private let dropped: @Sendable () -> Void
        init(dropped: @escaping @Sendable () -> Void) { self.dropped = dropped }
        deinit { dropped() }
    }

    fileprivate final class State: @unchecked Sendable {
        // @unchecked: the inflater and the pending input are used only by the
        // body's single consumer (`ResponseBodyBuffer` refuses a second concurrent reader).
        let lifetime: Lifetime
        let inflater: Inflater?
        /// A compressed chunk read from the connection, inflated from `pendingOffset` on.
        var pending: [UInt8] = []
        var pendingOffset = 0
        init(lifetime: Lifetime, inflater: Inflater?) {
            self.lifetime = lifetime
            self.inflater = inflater
        }
    }

    init(buffer: ResponseBodyBuffer, lifetime: Lifetime) {
        self.buffer = buffer
        self.state = State(lifetime: lifetime, inflater: nil)
    }

    private init(buffer: ResponseBodyBuffer, state: State) {
        self.buffer = buffer
        self.state = state
    }

    /// The same body, inflated chunk by chunk as it is read.
    func inflating(with inflater: Inflater) -> HTTPResponseBody {
        HTTPResponseBody(buffer: buffer, state: State(lifetime: state.lifetime, inflater: inflater))
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer, state: state) }

    /// Reads the next chunk; nil at the end of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: ResponseBodyBuffer
        fileprivate let state: State

        /// - Throws: `HTTPClientError` if the connection failed mid-body, `.cancelled` if
        ///   the task is cancelled while waiting for bytes, or `.decompressionFailed`.
        public mutating func next() async throws -> [UInt8]? {
            guard let inflater = state.inflater else { return try await buffer.next() }
            // One chunk of output at most per call: a small read that inflates
            // to a great deal is handed out, and checked, a chunk at a time.
            while true {
                if state.pendingOffset < state.pending.count || inflater.hasPendingOutput {
                    var inflated: [UInt8] = []
                    let taken = try state.pending.withUnsafeBytes { bytes throws(HTTPClientError) in
                        try inflater.inflate(UnsafeRawBufferPointer(rebasing: bytes[state.pendingOffset...]), into: &inflated,
                                             maxOutput: Inflater.chunkSize)
                    }
                    state.pendingOffset += taken
                    if inflated.isEmpty, taken == 0 { state.pendingOffset = state.pending.count }  // nothing more to be had from it
                    if state.pendingOffset >= state.pending.count {
                        state.pending = []
                        state.pendingOffset = 0
                    }
                    if !inflated.isEmpty { return inflated }
                    continue
                }
                guard let chunk = try await buffer.next() else {
                    try inflater.finish()
                    return nil
                }
                state.pending = chunk
                state.pendingOffset = 0
            }
        }
    }

    /// The trailer fields that followed the body, once it has been read to its
    /// end (its iterator returned nil); nil when there were none. Fields a
    /// trailer may not carry (framing, routing, content format, …) are left
    /// out (see `Docs/HTTP.md`, "Trailers").
    ///
    /// It never waits: before the end is read it throws, since only the
    /// body's reader can bring the end closer.
    ///
    /// - Throws: `HTTPClientError`: the body's failure if it failed (what its
    ///   iterator threw), else `.trailersNotReady` while the body has not been read to its end.
    public func trailers() async throws(HTTPClientError) -> HTTPHeaders? {
        try buffer.trailers.withLock { $0 }.trailers()
    }

    /// Reads the whole rest of the body.
    ///
    /// - Throws: `HTTPClientError` `.bodyTooLarge` past `maxBytes`, or the connection's failure.
    public func collect(maxBytes: Int = 100 * 1024 * 1024) async throws -> [UInt8] {
        var all: [UInt8] = []
        for try await chunk in self {
            all += chunk
            if all.count > maxBytes { throw HTTPClientError(.bodyTooLarge, "more than \(maxBytes) bytes") }
        }
        return all
    }
}

/// The connection's end of a streamed body: a `BackpressuredBuffer` of
/// chunks whose producer is the connection, on its loop (this actor shares the
/// loop's executor, so the connection pushes through `assumeIsolated`). The
/// consumer takes chunks without a hop to the loop; the connection hears
/// `setReading` on the loop when it should stop or go on reading its socket.
actor ResponseBodyBuffer {
    nonisolated let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
    nonisolated let chunks: BackpressuredBuffer<[UInt8], HTTPClientError>
    /// The trailers, recorded by the connection before it finishes `chunks`.
    nonisolated let trailers = Locked(StreamedTrailers())

    /// `setReading` pauses (false) or resumes (true) reading the socket; it is called on `loop`.
    init(loop: EventLoop, lowWatermark: Int, highWatermark: Int, setReading: @escaping (Bool) -> Void) {
        self.loop = loop
        chunks = BackpressuredBuffer(lowWatermark: lowWatermark, highWatermark: highWatermark,
                                     whenCancelled: HTTPClientError(.cancelled, "while waiting for the body"),
                                     whenReadTwice: HTTPClientError(.unsupported, "two tasks read one response body"))
        chunks.controlReading(on: loop, setReading)
    }

    /// Called by the connection on the loop with bytes of the read buffer.
    func push(_ bytes: UnsafeRawBufferPointer) {
        chunks.push(Array(bytes), size: bytes.count)
    }

    /// The body ended (`error` nil), followed by `trailers`, or failed.
    func finish(_ error: HTTPClientError?, trailers received: HTTPHeaders? = nil) {
        trailers.withLock { trailers in
            if let error { trailers.bodyFailed(error) } else { trailers.bodyEnded(trailers: received) }
        }
        chunks.finish(error)
    }

    /// The next chunk; nil at the end.
    ///
    /// - Throws: `HTTPClientError`: the connection's failure, `.cancelled` when
    ///   the task is cancelled while waiting, `.unsupported` for a second concurrent reader.
    nonisolated func next() async throws(HTTPClientError) -> [UInt8]? {
        guard let chunk = try await chunks.next() else {
            trailers.withLock { $0.consumerReadEnd() }
            return nil
        }
        return chunk
    }
}
