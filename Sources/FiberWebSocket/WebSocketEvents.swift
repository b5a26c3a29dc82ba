import FiberRuntime
import DequeModule

/// A WebSocket's events as an `AsyncSequence`, with backpressure: when the
/// consumer falls `highWatermark` message bytes behind, the producer is told
/// to pause (the connection stops reading its socket) and is resumed once the
/// consumer has caught up below `lowWatermark`. One consumer at a time.
public struct WebSocketEvents: AsyncSequence, Sendable {
    public typealias Element = WebSocketEvent
    public typealias Failure = Never

    let buffer: EventBuffer

    package init(buffer: EventBuffer) { self.buffer = buffer }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Waits for the next event; nil once the connection ended and every event was read.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: EventBuffer
        public mutating func next() async -> WebSocketEvent? { await buffer.next() }
        public mutating func next(isolation actor: isolated (any Actor)?) async -> WebSocketEvent? { await buffer.next() }
    }
}

/// The queue behind `WebSocketEvents`: producers on a loop, one consumer anywhere.
package final class EventBuffer: Sendable {
    private struct State {
        var queue = Deque<WebSocketEvent>()
        var bytes = 0
        var finished = false
        var paused = false
        var waiter: CheckedContinuation<WebSocketEvent?, Never>?
        var demandWaiters: [CheckedContinuation<Void, Never>] = []
        var onResume: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    let highWatermark: Int
    let lowWatermark: Int

    package init(highWatermark: Int = 1024 * 1024, lowWatermark: Int = 256 * 1024) {
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
    }

    /// Called (outside the lock, from the consumer's context) when a paused producer may go on.
    func setOnResume(_ action: @escaping @Sendable () -> Void) { state.withLock { $0.onResume = action } }

    /// Queues `event`; true when the producer should pause until `onResume`.
    @discardableResult
    package func yield(_ event: WebSocketEvent) -> Bool {
        let size = Self.size(of: event)
        let (waiter, pause): (CheckedContinuation<WebSocketEvent?, Never>?, Bool) = state.withLock { s in
            guard !s.finished else { return (nil, false) }
            if let w = s.waiter {
                s.waiter = nil
                return (w, false)
            }
            s.queue.append(event)
            s.bytes += size
            if s.bytes > highWatermark { s.paused = true }
            return (nil, s.paused)
        }
        waiter?.resume(returning: event)
        return pause
    }

    /// Queues `event`, then suspends while the consumer is behind (for forwarding tasks).
    func yieldWaitingForDemand(_ event: WebSocketEvent) async {
        guard yield(event) else { return }
        await withCheckedContinuation { c in
            let ready = state.withLock { s -> Bool in
                if !s.paused || s.finished { return true }
                s.demandWaiters.append(c)
                return false
            }
            if ready { c.resume() }
        }
    }

    /// Ends the sequence after the queued events.
    package func finish() {
        let (waiter, demand) = state.withLock { s in
            s.finished = true
            defer { s.waiter = nil; s.demandWaiters = [] }
            return (s.queue.isEmpty ? s.waiter : nil, s.demandWaiters)
        }
        waiter?.resume(returning: nil)
        for d in demand { d.resume() }
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Message bytes queued and not yet consumed.
    package var bufferedBytes: Int { state.withLock { $0.bytes } }

    func next() async -> WebSocketEvent? {
        if let ready = takeIfReady() { return ready.event }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<WebSocketEvent?, Never>) in
                let ready = state.withLock { s -> WebSocketEvent?? in
                    if let event = s.queue.first {
                        _ = s.queue.removeFirst()
                        s.bytes -= Self.size(of: event)
                        return .some(event)
                    }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.waiter = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
                checkResume()
            }
        } onCancel: {
            let waiter = state.withLock { s in defer { s.waiter = nil }; return s.waiter }
            waiter?.resume(returning: nil)
        }
    }

    private func takeIfReady() -> (event: WebSocketEvent?, Void)? {
        let taken = state.withLock { s -> WebSocketEvent?? in
            if let event = s.queue.popFirst() {
                s.bytes -= Self.size(of: event)
                return .some(event)
            }
            return s.finished ? .some(nil) : nil
        }
        guard let taken else { return nil }
        checkResume()
        return (taken, ())
    }

    private func checkResume() {
        let (action, demand) = state.withLock { s -> ((@Sendable () -> Void)?, [CheckedContinuation<Void, Never>]) in
            guard s.paused, s.bytes <= lowWatermark else { return (nil, []) }
            s.paused = false
            defer { s.demandWaiters = [] }
            return (s.onResume, s.demandWaiters)
        }
        action?()
        for d in demand { d.resume() }
    }

    private static func size(of event: WebSocketEvent) -> Int {
        if case .message(let m) = event { return m.byteCount + 64 }
        return 64
    }
}
