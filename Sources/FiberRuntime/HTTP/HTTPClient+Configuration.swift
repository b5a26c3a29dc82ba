extension HTTPClient {
    /// How a client connects, pools, times out and reads responses.
    public struct Configuration: Sendable {
        /// Connections per origin on each event loop, open or opening (default 8): each loop keeps
        /// its own pool, so a group of N loops may hold N times as many to one origin.
        public var maxConnectionsPerHost = 8
        /// Idle connections kept per origin (default: as many as `maxConnectionsPerHost`).
        public var maxIdleConnectionsPerHost: Int? = nil
        /// An idle connection is closed after this long (default 60 s).
        public var idleTimeout: Duration = .seconds(60)
        /// A connection is closed once this old, after its current request (default: no limit).
        public var maxConnectionLifetime: Duration? = nil
        /// The whole request, redirects and waiting for a connection included (default: none).
        public var requestTimeout: Duration? = nil
        /// Fail when no byte of the response arrives for this long (default 30 s).
        public var readIdleTimeout: Duration? = .seconds(30)
        /// Fail when the final response head has not arrived this long after
        /// the request was sent whole. It bounds a server that drips its head a
        /// byte at a time or sends endless interim responses, which the read-idle
        /// timeout, reset by every byte, does not. Default (nil): as long as the
        /// read-idle timeout in force and at least 30 s, so 30 s with the
        /// defaults; none when the read-idle timeout is off. A client that waits
        /// longer for a slow head (long polling) raises the read-idle timeout
        /// and the head bound follows.
        public var responseHeadTimeout: Duration? = nil
        /// Interim (1xx) responses accepted before the final one (default 10); one more fails the request.
        public var maxInterimResponses = 10
        /// Largest response body collected into memory (default 100 MiB).
        public var maxResponseBodySize = 100 * 1024 * 1024
        /// Largest response head (default 64 KiB).
        public var maxHeaderBytes = 64 * 1024
        /// Which redirects are followed (default: up to 10, never https → http).
        public var redirects = RedirectPolicy()
        /// Send `Accept-Encoding: gzip, deflate` and inflate such responses (default on).
        public var decompression = true
        /// Inflated bodies stop past this ratio to their compressed size (default 1000).
        public var maxDecompressionRatio = 1000
        /// Socket options, connect timeout (`socket.connectTimeout`, default 10 s) and Happy Eyeballs delay.
        public var socket = SocketOptions()
        /// Streamed bodies stop reading the socket when this much waits unread (default 256 KiB).
        public var streamHighWatermark = 256 * 1024
        /// TLS for https origins (default: the system's trust store, full verification, TLS 1.2 at least).
        public var tls = TLSConfiguration()
        /// The resolver for host names (default: the shared, caching one).
        public var resolver: Resolver = .shared

        /// The defaults above.
        public init() {}

        /// The head bound in force: the one given, else the read-idle timeout
        /// in force but at least 30 s, else none.
        static func responseHeadBound(given: Duration?, readIdle: Duration?) -> Duration? {
            given ?? readIdle.map { max($0, .seconds(30)) }
        }

        var poolLimits: ConnectionPoolStateMachine.Limits {
            .init(maxConnections: maxConnectionsPerHost, maxIdle: maxIdleConnectionsPerHost ?? maxConnectionsPerHost,
                  idleTimeout: idleTimeout, maxLifetime: maxConnectionLifetime)
        }
    }

    /// Settings of one request that override the client's configuration.
    public struct RequestOptions: Sendable {
        /// This request's whole deadline (overrides `requestTimeout`).
        public var timeout: Duration?
        /// Read-idle timeout for this request (overrides the configuration's).
        public var readIdleTimeout: Duration?
        /// Response-head timeout for this request (overrides the configuration's;
        /// nil: the configuration's, or the default rule over this request's read-idle timeout).
        public var responseHeadTimeout: Duration?
        /// Redirects for this request (overrides the configuration's).
        public var redirects: RedirectPolicy?
        /// Largest body collected for this request (overrides the configuration's).
        public var maxResponseBodySize: Int?
        /// Called as the request body goes out: bytes sent, total if known.
        public var uploadProgress: (@Sendable (_ sent: Int, _ total: Int?) -> Void)?
        /// Called as the response body arrives: bytes received, `Content-Length` if given.
        public var downloadProgress: (@Sendable (_ received: Int, _ total: Int?) -> Void)?

        /// No overrides.
        public init() {}
    }
}

/// Counts of the client's connections and waiting requests, over every loop and origin.
public struct ConnectionPoolStatistics: Sendable, Hashable {
    /// Connections open or opening.
    public var open = 0
    /// Connections waiting for a request.
    public var idle = 0
    /// Connections serving a request.
    public var leased = 0
    /// Connections being opened.
    public var connecting = 0
    /// Requests waiting for a connection.
    public var waiting = 0

    /// Counts as given (all zero by default).
    public init(open: Int = 0, idle: Int = 0, leased: Int = 0, connecting: Int = 0, waiting: Int = 0) {
        self.open = open; self.idle = idle; self.leased = leased; self.connecting = connecting; self.waiting = waiting
    }
}
