import FiberRuntime

/// A WebSocket that reconnects by itself after the connection ends, with
/// the delays of a `ReconnectionStrategy`, and one `events` stream across
/// every connection: `.connected`, messages, `.disconnected`, `.connected`
/// again… It ends once `close()` is called or the strategy gives up.
///
/// ```swift
/// let ws = ReconnectingWebSocket(connect: { WebSocketClient.connect(to: url) },
///                                strategy: .exponentialBackoff(baseDelay: 1, maxDelay: 30, maxAttempts: 10))
/// Task { await ws.start() }
/// for await event in ws.events { … }
/// ```
public final class ReconnectingWebSocket: FiberWebSocket {
    /// Every connection's events, in order, in one stream.
    public let events: WebSocketEvents

    private let connect: @Sendable () -> any FiberWebSocket
    private let strategy: ReconnectionStrategy
    private let buffer = EventBuffer()
    private let shared = Locked(Shared())

    private struct Shared {
        var current: (any FiberWebSocket)?
        var stopped = false
        var waiting: Task<Void, any Error>?
        var attempts = 0
    }

    /// A reconnecting socket that opens each connection with `connect`.
    public init(connect: @escaping @Sendable () -> any FiberWebSocket, strategy: ReconnectionStrategy = .exponentialBackoff()) {
        self.connect = connect
        self.strategy = strategy
        self.events = WebSocketEvents(buffer: buffer)
    }

    /// Connections opened so far (reconnections are this minus one).
    public var connectionCount: Int { shared.withLock { $0.attempts } }

    /// The current connection's state; `.connecting` while waiting to reconnect.
    public var state: WebSocketState {
        shared.withLock { s in
            if s.stopped { return s.current?.state ?? .disconnected }
            return s.current?.state ?? .connecting
        }
    }

    /// Connects, forwards events, and reconnects after each disconnection until
    /// `close()` or the strategy gives up. Returns when it is over.
    public func start() async {
        var failures = 0
        while true {
            let socket: (any FiberWebSocket)? = shared.withLock { s in
                guard !s.stopped else { return nil }
                let socket = connect()
                s.current = socket
                s.attempts += 1
                return socket
            }
            guard let socket else { break }
            var connected = false
            for await event in socket.events {
                if case .connected = event { connected = true }
                await buffer.yieldWaitingForDemand(event)
            }
            failures = connected ? 1 : failures + 1
            guard let delay = strategy.delay(forAttempt: failures) else { break }
            let wait: Task<Void, any Error>? = shared.withLock { s in
                guard !s.stopped else { return nil }
                s.current = nil
                let task = Task { try await Task.sleep(for: delay) }
                s.waiting = task
                return task
            }
            guard let wait else { break }
            do { try await wait.value } catch { break }
        }
        shared.withLock { $0.stopped = true }
        buffer.finish()
    }

    /// Sends on the current connection.
    ///
    /// - Throws: `WebSocketError` `.notConnected` between connections; what the connection's `send` throws.
    public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        guard let current = shared.withLock({ $0.current }) else {
            throw WebSocketError(.notConnected, "reconnecting")
        }
        try await current.send(message)
    }

    /// Stops reconnecting and closes the current connection with `code` (by default `WebSocketDefaults.closeCode`).
    public func close(code: UInt16, reason: String) {
        let (current, waiting) = shared.withLock { s in
            s.stopped = true
            return (s.current, s.waiting)
        }
        waiting?.cancel()
        current?.close(code: code, reason: reason)
    }
}
