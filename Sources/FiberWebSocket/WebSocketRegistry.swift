import FiberRuntime

/// WebSockets to close together when the process stops: register each one
/// as it is opened, and `closeAll()` closes them with 1001 (Going Away).
///
/// ```swift
/// let sockets = WebSocketRegistry()
/// let feed = sockets.register(ReconnectingWebSocket(connect: { WebSocketClient.connect(to: url) }))
/// …
/// await sockets.closeAll()   // `FiberService` of FiberServiceLifecycle does this on shutdown
/// ```
///
/// A `ReconnectingWebSocket` closed this way stops reconnecting. Sockets that
/// have disconnected are dropped at the next registration, so a registry that
/// lives as long as the process does not grow with every connection made.
public final class WebSocketRegistry: Sendable {
    private struct State {
        var sockets: [any FiberWebSocket] = []
        /// Set by `closeAll`: a socket registered afterwards is closed at once.
        var closing: (code: UInt16, reason: String)?
    }

    private let state = Locked(State())

    /// An empty registry.
    public init() {}

    /// Keeps `socket` to be closed by `closeAll`; once `closeAll` was called, closes it at once.
    ///
    /// - Returns: `socket`, to register where it is made.
    @discardableResult
    public func register<Socket: FiberWebSocket>(_ socket: Socket) -> Socket {
        let closing = state.withLock { state -> (code: UInt16, reason: String)? in
            if let closing = state.closing { return closing }
            state.sockets.removeAll { $0.state == .disconnected }
            state.sockets.append(socket)
            return nil
        }
        if let closing { socket.close(code: closing.code, reason: closing.reason) }
        return socket
    }

    /// Sockets kept to be closed: those registered before `closeAll`, less those
    /// found disconnected at a later registration.
    public var count: Int { state.withLock { $0.sockets.count } }

    /// Closes every registered socket with `code` (default 1001, Going Away) and
    /// `reason`, and waits until each has disconnected (its closing handshake
    /// done, or its own close timeout passed), at most `timeout`. A socket
    /// registered afterwards is closed at once with the same code.
    ///
    /// Throws nothing; returns early when the calling task is cancelled.
    public func closeAll(code: UInt16 = WebSocketCloseCode.goingAway, reason: String = "going away",
                         timeout: Duration = .seconds(10)) async {
        let sockets = state.withLock { state in
            if state.closing == nil { state.closing = (code, reason) }
            defer { state.sockets = [] }
            return state.sockets
        }
        for socket in sockets { socket.close(code: code, reason: reason) }
        // `events` has one consumer, the application's, so the end is read from `state`.
        let deadline = ContinuousClock.now + timeout
        while sockets.contains(where: { $0.state != .disconnected }), ContinuousClock.now < deadline {
            guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return }
        }
    }
}
