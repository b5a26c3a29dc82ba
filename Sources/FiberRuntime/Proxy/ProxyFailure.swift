/// A proxy that would not carry a request: it could not be reached, refused
/// the tunnel, asked for credentials, answered what no proxy should, closed
/// the connection, or said nothing within the connect timeout.
///
/// It names the proxy by `http://host:port` and the destination by
/// `host:port`, never with credentials. `HTTPClientError` carries it with kind `.proxy`.
public struct ProxyFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the proxy failed, as a small open set of values.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The proxy could not be connected to (`transport` says why: refused, DNS, timeout).
        public static let unreachable = Reason("could not connect to the proxy")
        /// The proxy wants credentials, or refused the ones given (HTTP 407, SOCKS5 authentication).
        public static let authenticationRequired = Reason("the proxy requires authentication")
        /// The proxy refused to reach the destination (a non-2xx answer to `CONNECT`, a SOCKS5 reply code).
        public static let refused = Reason("the proxy refused the connection")
        /// The proxy's answer broke its protocol.
        public static let malformedReply = Reason("malformed reply from the proxy")
        /// The proxy closed the connection before the tunnel was open.
        public static let closed = Reason("the proxy closed the connection")
        /// The proxy did not answer within the connect timeout.
        public static let timedOut = Reason("the proxy did not answer in time")
    }

    /// Why.
    public let reason: Reason
    /// The proxy, as `http://host:port` or `socks5://host:port`.
    public let proxy: String
    /// Where the tunnel was to lead, `host:port`.
    public let destination: String
    /// The proxy's HTTP status, when it answered `CONNECT` with one.
    public let status: Int?
    /// The SOCKS5 reply code (RFC 1928 §6), when the proxy answered with one.
    public let replyCode: Int?
    /// More about it, for people.
    public let detail: String?
    /// The socket's error, for `.unreachable` and a connection that failed during the handshake.
    public let transport: TransportError?

    init(_ reason: Reason, proxy: ProxyServer, destination: String, status: Int? = nil, replyCode: Int? = nil,
         detail: String? = nil, transport: TransportError? = nil) {
        self.reason = reason
        self.proxy = proxy.description
        self.destination = destination
        self.status = status
        self.replyCode = replyCode
        self.detail = detail
        self.transport = transport
    }

    /// "proxy http://127.0.0.1:3128 → example.com:443: the proxy refused the connection: 403 Forbidden".
    public var description: String {
        "proxy \(proxy) → \(destination): \(reason)" + (detail.map { ": \($0)" } ?? "")
            + (transport.map { " (\($0.summary))" } ?? "")
    }
}
