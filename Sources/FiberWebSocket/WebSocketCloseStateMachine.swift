/// The closing handshake (RFC 6455 §5.5.1, §7), both directions, as a value:
/// one `mutating func` per event, each returning the actions the connection
/// performs. No I/O, no clock: the connection arms the timer it is told to.
///
/// Lifecycle: open → closing (we sent close, waiting for the peer's) → closed;
/// or open → closed when the peer closed first (we echo its code), on a
/// protocol error (we send its code), or when the socket ended (1006).
public struct WebSocketCloseStateMachine: Sendable, Hashable {
    /// Where the handshake stands.
    public enum State: Sendable, Hashable { case open, closing, closed }

    /// What the connection must do, in order.
    public enum Action: Sendable, Hashable {
        /// Send a close frame (no payload when `code` is nil).
        case sendClose(code: UInt16?, reason: String)
        /// Arm the close timeout.
        case startTimer
        /// Close the socket.
        case closeSocket
        /// Report the end: the code and reason for `.disconnected`, and the error if it failed.
        case finish(code: UInt16, reason: String, error: WebSocketError?)
    }

    /// The current state.
    public private(set) var state: State = .open
    private var sent: (code: UInt16, reason: String)?

    public init() {}

    /// Data may be sent only while open (no data after a close frame).
    public var canSendData: Bool { state == .open }

    /// The application asked to close.
    public mutating func closeRequested(code: UInt16, reason: String) -> [Action] {
        guard state == .open else { return [] }
        state = .closing
        sent = (code, reason)
        return [.sendClose(code: code, reason: reason), .startTimer]
    }

    /// The peer's close frame arrived (`code` nil: it had no status).
    public mutating func closeReceived(code: UInt16?, reason: String) -> [Action] {
        switch state {
        case .open:
            state = .closed
            return [.sendClose(code: code, reason: ""), .closeSocket,
                    .finish(code: code ?? WebSocketCloseCode.noStatus, reason: reason, error: nil)]
        case .closing:
            state = .closed
            return [.closeSocket, .finish(code: code ?? WebSocketCloseCode.noStatus, reason: reason, error: nil)]
        case .closed:
            return []
        }
    }

    /// The peer broke the protocol: fail the connection with the error's code.
    public mutating func failed(_ error: WebSocketError) -> [Action] {
        guard state != .closed else { return [] }
        let alreadySent = state == .closing
        state = .closed
        let code = error.closeCode ?? WebSocketCloseCode.protocolError
        var actions: [Action] = []
        if !alreadySent { actions.append(.sendClose(code: code, reason: "")) }
        actions += [.closeSocket, .finish(code: code, reason: error.message, error: error)]
        return actions
    }

    /// The close timeout fired before the peer answered.
    public mutating func timerFired() -> [Action] {
        guard state == .closing else { return [] }
        state = .closed
        return [.closeSocket, .finish(code: WebSocketCloseCode.abnormal, reason: "close timeout",
                                      error: WebSocketError(.closeTimeout, "the peer did not answer the close frame"))]
    }

    /// The socket ended or failed without a completed handshake (1006).
    public mutating func transportEnded(_ error: WebSocketError?) -> [Action] {
        guard state != .closed else { return [] }
        state = .closed
        return [.closeSocket, .finish(code: WebSocketCloseCode.abnormal, reason: error?.message ?? "connection closed without a close frame",
                                      error: error)]
    }

    public static func == (a: Self, b: Self) -> Bool { a.state == b.state && a.sent?.code == b.sent?.code && a.sent?.reason == b.sent?.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(state) }
}
