import FiberRuntime

/// Opens WebSocket connections on the Fiber runtime.
///
/// ```swift
/// let ws = WebSocketClient.connect(to: "ws://127.0.0.1:8080/chat")
/// for await event in ws.events { … }
/// ```
public enum WebSocketClient {
    /// Starts connecting to `url` and returns the connection at once; its
    /// `events` begin with `.connected`, or with `.error` and `.disconnected`
    /// if the connection or the upgrade fails (`.invalidConfiguration` first,
    /// before anything connects, when `configuration.validate()` refuses it).
    ///
    /// - Parameters:
    ///   - url: a `ws://` or `wss://` URL (TLS as `configuration.tls` says).
    ///   - headers: extra handshake headers (authentication, origin, cookies).
    ///   - subprotocols: offered in `Sec-WebSocket-Protocol`, in preference order.
    ///   - configuration: TLS, limits, compression, pings and timeouts.
    ///   - loop: the loop to run on; by default the next loop of the shared group.
    public static func connect(
        to url: String, headers: HTTPHeaders = HTTPHeaders(), subprotocols: [String] = [],
        configuration: WebSocketConfiguration = WebSocketConfiguration(), on loop: EventLoop? = nil
    ) -> WebSocketConnection {
        let loop = loop ?? EventLoopGroup.shared.next()
        let connection = WebSocketConnection(loop: loop, configuration: configuration)
        let parsed: HTTPTarget
        do {
            try configuration.validate()
            parsed = try HTTPTarget(webSocketURL: url)
        } catch {
            Task(executorPreference: loop) { await connection.fail(error) }
            return connection
        }
        Task(executorPreference: loop) { await connection.start(url: parsed, headers: headers, subprotocols: subprotocols) }
        return connection
    }

    /// Connects to `url` and returns once the handshake has succeeded.
    ///
    /// - Throws: `WebSocketError`: `.invalidConfiguration`, `.invalidURL`, `.tls` (with the `TLSError`),
    ///   `.transport` (refused, reset, timed out), `.upgradeFailed` (with the
    ///   HTTP status and body), `.handshakeFailed`, `.invalidHeader`.
    public static func open(
        _ url: String, headers: HTTPHeaders = HTTPHeaders(), subprotocols: [String] = [],
        configuration: WebSocketConfiguration = WebSocketConfiguration(), on loop: EventLoop? = nil
    ) async throws(WebSocketError) -> WebSocketConnection {
        let connection = connect(to: url, headers: headers, subprotocols: subprotocols, configuration: configuration, on: loop)
        try await connection.waitUntilOpen()
        return connection
    }
}
