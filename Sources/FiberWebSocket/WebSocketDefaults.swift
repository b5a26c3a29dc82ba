import Fiber
import FiberRuntime

/// Defaults for the WebSocket client. The close code and the jitter come from
/// `FiberDefaults.shared` (`webSocketDefaultCloseCode`, `jitterFraction`), so
/// overriding them there overrides them here.
public enum WebSocketDefaults {
    /// The close code `close()` and `ReconnectingWebSocket.stop()` send by default.
    public static var closeCode: UInt16 { FiberDefaults.shared.webSocketDefaultCloseCode }
    /// The fraction of a backoff delay added at random.
    public static var jitterFraction: Double { FiberDefaults.shared.jitterFraction }
    /// The largest frame and message accepted: 16 MiB.
    public static let maxMessageSize = 16 * 1024 * 1024
}

/// How a WebSocket connection behaves.
public struct WebSocketConfiguration: Sendable {
    /// The largest frame payload accepted (larger: close 1009).
    public var maxFrameSize = WebSocketDefaults.maxMessageSize
    /// The largest message accepted, after inflation (larger: close 1009).
    public var maxMessageSize = WebSocketDefaults.maxMessageSize
    /// Outgoing messages are split into frames of at most this many payload bytes.
    public var maxOutgoingFrameSize = 1024 * 1024
    /// Time allowed for TCP connect plus the opening handshake.
    public var connectTimeout: Duration = .seconds(10)
    /// Time the peer has to answer our close frame.
    public var closeTimeout: Duration = .seconds(5)
    /// Pings are sent this often (nil: no keep-alive pings).
    public var pingInterval: Duration? = .seconds(30)
    /// A ping unanswered this long means the peer is dead.
    public var pingTimeout: Duration = .seconds(20)
    /// Offer permessage-deflate with these parameters (nil: no compression).
    public var compression: PerMessageDeflate? = nil
    /// Receiving pauses the socket once this many message bytes wait for the consumer…
    public var receiveHighWatermark = 1024 * 1024
    /// …and resumes once they are down to this.
    public var receiveLowWatermark = 256 * 1024
    /// TLS for `wss://`: verification on, the system's trust store, TLS 1.2 at
    /// least, ALPN `http/1.1`; OpenSSL's buffers are handed back while a
    /// connection is idle, as most WebSocket connections are.
    public var tls: TLSConfiguration = {
        var tls = TLSConfiguration()
        tls.releasesIdleBuffers = true
        return tls
    }()
    /// The proxy the connection goes through (default `.none`: direct): an HTTP
    /// proxy by `CONNECT` for both `ws://` and `wss://`, or SOCKS5.
    public var proxy: ProxyConfiguration = .none

    /// The defaults above.
    public init() {}
}
