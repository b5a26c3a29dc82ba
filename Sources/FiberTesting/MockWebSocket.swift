import FiberRuntime
import FiberWebSocket

/// An in-memory WebSocket: `pair()` returns two ends wired to each other,
/// for testing code that takes a `FiberWebSocket` without a network.
///
/// ```swift
/// let (client, server) = MockWebSocket.pair()
/// try await server.send(.text("hello"))   // client.events yields .message(.text("hello"))
/// client.close(code: 1000, reason: "done") // both ends: .disconnected(1000, "done")
/// ```
public final class MockWebSocket: FiberWebSocket {
    /// This end's events: `.connected`, what the other end sent, `.disconnected`.
    public let events: WebSocketEvents
    let buffer = EventBuffer(highWatermark: .max, lowWatermark: .max)
    private let shared = Locked(Shared())

    private struct Shared {
        var state = WebSocketState.connected
        weak var peer: MockWebSocket?
        var sent: [WebSocketMessage] = []
    }

    private init() {
        events = WebSocketEvents(buffer: buffer)
        buffer.yield(.connected)
    }

    /// Two connected ends.
    public static func pair() -> (MockWebSocket, MockWebSocket) {
        let a = MockWebSocket(), b = MockWebSocket()
        a.shared.withLock { $0.peer = b }
        b.shared.withLock { $0.peer = a }
        return (a, b)
    }

    /// The current state: `.connected` until either end closes.
    public var state: WebSocketState { shared.withLock { $0.state } }

    /// Every message this end sent, in order.
    public var sentMessages: [WebSocketMessage] { shared.withLock { $0.sent } }

    /// Delivers `message` to the other end.
    ///
    /// - Throws: `WebSocketError` `.notConnected` once closed.
    public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        let peer = shared.withLock { s -> MockWebSocket?? in
            guard s.state == .connected else { return nil }
            s.sent.append(message)
            return .some(s.peer)
        }
        guard let peer else { throw WebSocketError(.notConnected, "the mock socket is closed") }
        peer?.buffer.yield(.message(message))
    }

    /// Closes both ends at once: each gets `.disconnected(code, reason)`.
    public func close(code: UInt16, reason: String) {
        let peer = shared.withLock { $0.peer }
        end(code: code, reason: reason)
        peer?.end(code: code, reason: reason)
    }

    /// Ends the other end abnormally (1006, with `error`), as a dropped connection would.
    public func simulateFailure(_ error: WebSocketError) {
        let peer = shared.withLock { $0.peer }
        for end in [self, peer].compactMap({ $0 }) {
            guard end.markDisconnected() else { continue }
            end.buffer.yield(.error(error))
            end.buffer.yield(.disconnected(code: WebSocketCloseCode.abnormal, reason: error.message))
            end.buffer.finish()
        }
    }

    private func end(code: UInt16, reason: String) {
        guard markDisconnected() else { return }
        buffer.yield(.disconnected(code: code, reason: reason))
        buffer.finish()
    }

    private func markDisconnected() -> Bool {
        shared.withLock { s in
            guard s.state != .disconnected else { return false }
            s.state = .disconnected
            return true
        }
    }
}
