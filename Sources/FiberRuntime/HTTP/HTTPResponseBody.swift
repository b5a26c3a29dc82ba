import DequeModule

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

        /// - Throws: `HTTPClientError` if the connection failed mid-body, or `.decompressionFailed`.
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

/// The buffer between a connection (producer, on the loop) and a body consumer.
actor ResponseBodyBuffer {
    nonisolated let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    private var chunks = Deque<[UInt8]>()
    private var backpressure: ReadBackpressure
    private var end: HTTPClientError?? = nil
    private var waiter: CheckedContinuation<[UInt8]?, any Error>?
    /// Pauses (false) or resumes (true) reading the socket.
    private let setReading: (Bool) -> Void

    init(loop: EventLoop, lowWatermark: Int, highWatermark: Int, setReading: @escaping (Bool) -> Void) {
        self.loop = loop
        self.backpressure = ReadBackpressure(lowWatermark: lowWatermark, highWatermark: highWatermark)
        self.setReading = setReading
    }

    /// Called by the connection on the loop with bytes of the read buffer.
    func push(_ bytes: UnsafeRawBufferPointer) {
        let chunk = Array(bytes)
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: chunk)
            return
        }
        chunks.append(chunk)
        if backpressure.received(chunk.count) == .stopReading { setReading(false) }
    }

    /// The body ended (nil) or failed.
    func finish(_ error: HTTPClientError?) {
        guard end == nil else { return }
        end = .some(error)
        backpressure.finished()
        if let waiter {
            self.waiter = nil
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    func next() async throws -> [UInt8]? {
        // A buffered chunk needs no continuation (nothing suspends before this point).
        if let chunk = chunks.popFirst() {
            if backpressure.consumed(chunk.count) == .startReading { setReading(true) }
            return chunk
        }
        return try await withCheckedThrowingContinuation { c in
            if let chunk = chunks.popFirst() {
                if backpressure.consumed(chunk.count) == .startReading { setReading(true) }
                c.resume(returning: chunk)
            } else if let end {
                if let error = end { c.resume(throwing: error) } else { c.resume(returning: nil) }
            } else if waiter != nil {
                c.resume(throwing: HTTPClientError(.unsupported, "two tasks read one response body"))
            } else {
                waiter = c
            }
        }
    }
}
