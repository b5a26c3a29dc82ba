/// What a WebSocket reports, in order: `.connected` once, messages, then
/// `.disconnected` once (preceded by `.error` when it failed). The stream ends after `.disconnected`.
public enum WebSocketEvent: Sendable, Hashable {
    /// The opening handshake succeeded.
    case connected
    /// A whole message arrived.
    case message(WebSocketMessage)
    /// The connection ended, with the close code and reason (1006 for an abnormal end).
    case disconnected(code: UInt16?, reason: String?)
    /// The connection failed (the next event is `.disconnected`).
    case error(WebSocketError)
}

/// Where a WebSocket connection stands.
public enum WebSocketState: Sendable, Hashable {
    /// Connecting or handshaking.
    case connecting
    /// Open: messages flow both ways.
    case connected
    /// A close frame was sent; waiting for the peer's.
    case closing
    /// Closed, cleanly or not.
    case disconnected
}

/// A WebSocket: the API shared by the real client connection, the mock pair
/// and the reconnecting wrapper.
public protocol FiberWebSocket: Sendable {
    /// The events, in order; one consumer.
    var events: WebSocketEvents { get }
    /// The current state.
    var state: WebSocketState { get }
    /// Sends a message; returns once it was written (or buffered under the socket's bound).
    ///
    /// - Throws: `WebSocketError` `.notConnected` unless connected, `.transport` when the write fails.
    func send(_ message: WebSocketMessage) async throws(WebSocketError)
    /// Starts the closing handshake with `code` and `reason` (at most 123 bytes of UTF-8); `.disconnected` follows.
    func close(code: UInt16, reason: String)
}

extension FiberWebSocket {
    /// Closes with `WebSocketDefaults.closeCode` (1000) and no reason.
    public func close() { close(code: WebSocketDefaults.closeCode, reason: "") }
}
