import DequeModule

/// A response body streamed as it arrives, as an `AsyncSequence` of byte
/// chunks. When the consumer falls behind by the high watermark, the
/// connection stops reading its socket until the consumer catches up.
public struct HTTPResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let buffer: ResponseBodyBuffer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Reads the next chunk; nil at the end of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: ResponseBodyBuffer
        /// - Throws: `HTTPClientError` if the connection failed mid-body.
        public mutating func next() async throws -> [UInt8]? { try await buffer.next() }
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
        try await withCheckedThrowingContinuation { c in
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
