import FiberRuntime

extension HTTPTarget {
    /// Parses a `ws://` or `wss://` URL with the runtime's one URL parser:
    /// `ws` and `wss` are `http` and `https` with a WebSocket scheme (the same
    /// default ports, TLS for `wss`), and a fragment is refused (RFC 6455 §3).
    ///
    /// - Throws: `WebSocketError` `.invalidURL` for another scheme, no host, a
    ///   port out of range, user info, a fragment, or a control byte or space in the path.
    init(webSocketURL url: String) throws(WebSocketError) {
        do {
            self = try HTTPTarget(url, schemes: .webSocket)
        } catch {
            throw WebSocketError(.invalidURL, "not a valid ws:// or wss:// URL: \(url)")
        }
    }
}
