import FiberRuntime

/// A WebSocket's events as an `AsyncSequence`, with backpressure: when the
/// consumer falls `highWatermark` message bytes behind, the producer is told
/// to pause (the connection stops reading its socket) and is resumed once the
/// consumer has caught up to `lowWatermark`. One consumer at a time: a second
/// iterator waiting at the same moment sees the end.
public struct WebSocketEvents: AsyncSequence, Sendable {
    public typealias Element = WebSocketEvent
    public typealias Failure = Never

    let buffer: EventBuffer

    package init(buffer: EventBuffer) { self.buffer = buffer }

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Waits for the next event; nil once the connection ended and every event
    /// was read, or when the waiting task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: EventBuffer
        /// The next event, or nil at the end.
        public mutating func next() async -> WebSocketEvent? { await buffer.next() }
        /// The next event, or nil at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> WebSocketEvent? { await buffer.next() }
    }
}

/// The queue behind `WebSocketEvents`: the runtime's `BackpressuredBuffer`,
/// counting each event as its message bytes plus a small overhead. Producers:
/// a connection on its loop (told to pause and resume reading through
/// `controlReading`), `ReconnectingWebSocket`'s forwarding task
/// (`yieldWaitingForDemand`), `MockWebSocket` (no limit); one consumer anywhere.
package typealias EventBuffer = BackpressuredBuffer<WebSocketEvent, Never>

extension BackpressuredBuffer where Element == WebSocketEvent, Failure == Never {
    /// An event buffer; `.max` for both watermarks means no backpressure.
    package convenience init(highWatermark: Int = 1024 * 1024, lowWatermark: Int = 256 * 1024) {
        // The rule needs 0 <= low < high. A connection makes its buffer before it
        // checks its configuration (and then fails with `.invalidConfiguration`
        // through this buffer), and `.max` for both can never be reached anyway.
        let high = max(highWatermark, 1)
        self.init(lowWatermark: min(max(lowWatermark, 0), high - 1), highWatermark: high)
    }

    /// Queues `event` (dropped once finished), or hands it to the waiting consumer.
    package func yield(_ event: WebSocketEvent) {
        push(event, size: Self.size(of: event))
    }

    /// Queues `event`, then suspends while the consumer is behind (for forwarding tasks).
    func yieldWaitingForDemand(_ event: WebSocketEvent) async {
        yield(event)
        await waitForDemand()
    }

    /// A message's bytes, plus 64 for the event itself, so that a flood of
    /// empty messages or control events still reaches the watermark.
    static func size(of event: WebSocketEvent) -> Int {
        if case .message(let m) = event { return m.byteCount + 64 }
        return 64
    }
}
