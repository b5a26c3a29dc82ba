import Logging
extension HTTPClient {
    /// How a client connects, pools, times out and reads responses.
    public struct Configuration: Sendable {
        /// Connections per origin for the whole client, open or opening (default 64). Each
        /// event loop keeps its own pool with an even share of the limit (`Docs/HTTP.md`): a
        /// request waits for a connection of its own loop's share when that share is busy,
        /// even while another loop's is not. A limit below the number of loops sends on
        /// that many loops only. `statistics().waiting` counts the requests waiting.
        public var maxConnectionsPerHost = 64
        /// Idle connections kept per origin for the whole client (default: as many as
        /// `maxConnectionsPerHost`), shared over the loops as that limit is.
        public var maxIdleConnectionsPerHost: Int? = nil
        /// An idle connection is closed after this long (default 60 s).
        public var idleTimeout: Duration = .seconds(60)
        /// A connection is closed once this old, after its current request (default: no limit).
        public var maxConnectionLifetime: Duration? = nil
        /// The whole request, redirects and waiting for a connection included (default: none).
        public var requestTimeout: Duration? = nil
        /// Fail when no byte of the response arrives for this long (default 30 s), except
        /// while the server is still taking the request's body: a moving upload is not idle.
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
        /// Send `Accept-Encoding` naming every coding built in (`HTTPClient.contentCodings`:
        /// `gzip, deflate, br, zstd` by default) and decode such responses (default on).
        public var decompression = true
        /// Inflated bodies stop past this ratio to their compressed size (default 1000).
        public var maxDecompressionRatio = 1000
        /// Socket options, connect timeout (`socket.connectTimeout`, default 10 s) and Happy Eyeballs delay.
        public var socket = SocketOptions()
        /// Origins served over a Unix domain socket instead of the network: origin
        /// (`http://api.local`, `https://api.local:8443`, as `HTTPTarget.origin` writes it)
        /// to socket path. Requests keep their URL, `Host` and TLS name; only the
        /// connection goes to the socket. Default: none (see `HTTPClient+UnixSocketOrigins`).
        public var unixSocketOrigins: [String: String] = [:]
        /// Streamed bodies stop reading the socket when this much waits unread (default 256 KiB).
        public var streamHighWatermark = 256 * 1024
        /// TLS for https origins (default: the system's trust store, full verification, TLS 1.2 at least).
        /// Its ALPN list is set by `httpVersion`.
        public var tls = TLSConfiguration()
        /// Which HTTP versions the client speaks (default `.automatic`: HTTP/2
        /// when a TLS server picks it by ALPN, else HTTP/1.1). Over TLS it sets
        /// the ALPN protocols offered, whatever `tls.applicationProtocols` says.
        public var httpVersion = HTTPVersionPolicy.automatic
        /// How HTTP/2 connections run: streams per connection, windows, PINGs, flood limits.
        public var http2 = HTTP2Configuration()
        /// The resolver for host names (default: the shared, caching one).
        public var resolver: Resolver = .shared
        /// The proxy requests go through (default `.none`: direct). `.environment`
        /// reads `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` when the client is made.
        public var proxy: ProxyConfiguration = .none
        /// Receives connection-level events, with their values in metadata (default: none):
        /// a request waiting for a connection because its origin's pool is at its limit
        /// (debug), a TLS handshake that resumed no session (trace), an idle connection
        /// closed (trace). The client logs nothing else: what fails a request is thrown
        /// to its caller.
        public var logger: Logger? = nil

        /// The defaults above.
        public init() {}

        /// The head bound in force: the one given, else the read-idle timeout
        /// in force but at least 30 s, else none.
        static func responseHeadBound(given: Duration?, readIdle: Duration?) -> Duration? {
            given ?? readIdle.map { max($0, .seconds(30)) }
        }

        /// The pool limits of each of `loopCount` loops, nil for a loop without a share of the connections.
        func poolLimits(loopCount: Int) -> [ConnectionPoolStateMachine.Limits?] {
            let shares = ConnectionLimitShares(maxConnections: maxConnectionsPerHost,
                                               maxIdle: maxIdleConnectionsPerHost ?? maxConnectionsPerHost,
                                               loopCount: loopCount)
            return zip(shares.connections, shares.idle).map { connections, idle in
                connections == 0 ? nil : .init(maxConnections: connections, maxIdle: idle,
                                               idleTimeout: idleTimeout, maxLifetime: maxConnectionLifetime)
            }
        }

        /// Checks that every value can work: counts and sizes in range,
        /// durations positive (and within the loop's timers), each pair of
        /// watermarks with its low below its high. `HTTPClient.init` runs it, and
        /// a client made with a configuration it refuses throws its error from
        /// every request, before anything reaches a loop.
        ///
        /// - Throws: `HTTPClient.ConfigurationError` naming the first setting that cannot work.
        public func validate() throws(ConfigurationError) {
            typealias Check = ConfigurationError
            try Check.require(maxConnectionsPerHost >= 1, "maxConnectionsPerHost", "must be at least 1, not \(maxConnectionsPerHost)")
            if let idle = maxIdleConnectionsPerHost {
                try Check.require(idle >= 0, "maxIdleConnectionsPerHost", "must not be negative (\(idle))")
            }
            try Check.positive(idleTimeout, "idleTimeout")
            try Check.positive(maxConnectionLifetime, "maxConnectionLifetime")
            try Check.positive(requestTimeout, "requestTimeout")
            try Check.positive(readIdleTimeout, "readIdleTimeout")
            try Check.positive(responseHeadTimeout, "responseHeadTimeout")
            try Check.require(maxInterimResponses >= 0, "maxInterimResponses", "must not be negative (\(maxInterimResponses))")
            try Check.require(maxResponseBodySize >= 0, "maxResponseBodySize", "must not be negative (\(maxResponseBodySize))")
            try Check.require(maxHeaderBytes >= 1, "maxHeaderBytes", "must be at least 1, not \(maxHeaderBytes)")
            try Check.require(redirects.maxRedirects >= 0, "redirects.maxRedirects", "must not be negative (\(redirects.maxRedirects))")
            try Check.require(maxDecompressionRatio >= 1, "maxDecompressionRatio", "must be at least 1, not \(maxDecompressionRatio)")
            try socket.validate()
            try http2.validate()
            try validateUnixSocketOrigins()
            try proxy.validate()
            // Streamed bodies resume reading at a quarter of it.
            try Check.require(streamHighWatermark >= 1, "streamHighWatermark", "must be at least 1, not \(streamHighWatermark)")
        }
    }

    /// Settings of one request that override the client's configuration.
    public struct RequestOptions: Sendable {
        /// This request's whole deadline (overrides `requestTimeout`).
        public var timeout: Duration?
        /// The instant by which this request must be done; with `timeout` (or
        /// `requestTimeout`) too, whichever comes first.
        public var deadline: ContinuousClock.Instant? {
            get { deadlineReading?.instant }
            set { deadlineReading = newValue.map(MonotonicTime.init) }
        }
        /// `deadline` as stored: a reading of the same clock whose size is
        /// known when compiled, so async code holding the options allocates nothing for it.
        package var deadlineReading: MonotonicTime?
        /// Read-idle timeout for this request (overrides the configuration's).
        public var readIdleTimeout: Duration?
        /// Response-head timeout for this request (overrides the configuration's;
        /// nil: the configuration's, or the default rule over this request's read-idle timeout).
        public var responseHeadTimeout: Duration?
        /// Redirects for this request (overrides the configuration's).
        public var redirects: RedirectPolicy?
        /// The HTTP versions this request may use (overrides the configuration's).
        /// Connections of different policies are pooled apart.
        public var httpVersion: HTTPVersionPolicy?
        /// Largest body collected for this request (overrides the configuration's).
        public var maxResponseBodySize: Int?
        /// Called as the request body goes out: bytes sent, total if known.
        public var uploadProgress: (@Sendable (_ sent: Int, _ total: Int?) -> Void)?
        /// Called as the response body arrives: bytes received, `Content-Length` if given.
        public var downloadProgress: (@Sendable (_ received: Int, _ total: Int?) -> Void)?
        /// The proxy for this request (overrides the configuration's; `.environment`
        /// reads the environment for this request).
        public var proxy: ProxyConfiguration?
        /// Called for each redirect followed, as the next request is about to go, on the
        /// request's loop: keep it short. Tracing makes a span of each hop with it.
        public var redirectObserver: (@Sendable (RedirectHop) -> Void)?
        /// Keeps this request's cookies (default: none): asked for the `Cookie` field of
        /// every hop, redirects included, and given every hop's `Set-Cookie` values
        /// (see `HTTPCookieHandler`). The Fiber API's `CookieJar` is one.
        public var cookies: (any HTTPCookieHandler)?

        /// No overrides.
        public init() {}

        /// Checks the overrides as `Configuration.validate()` checks the client's values.
        ///
        /// - Throws: `HTTPClient.ConfigurationError` naming the first override that cannot work.
        public func validate() throws(ConfigurationError) {
            typealias Check = ConfigurationError
            try Check.positive(timeout, "RequestOptions.timeout")
            try Check.positive(readIdleTimeout, "RequestOptions.readIdleTimeout")
            try Check.positive(responseHeadTimeout, "RequestOptions.responseHeadTimeout")
            if let redirects {
                try Check.require(redirects.maxRedirects >= 0, "RequestOptions.redirects.maxRedirects",
                                  "must not be negative (\(redirects.maxRedirects))")
            }
            if let size = maxResponseBodySize {
                try Check.require(size >= 0, "RequestOptions.maxResponseBodySize", "must not be negative (\(size))")
            }
            do throws(ConfigurationError) {
                try proxy?.validate()
            } catch {
                throw ConfigurationError(setting: "RequestOptions." + error.setting, reason: error.reason)
            }
        }
    }

    /// A configuration value that cannot work (a zero timeout, a negative
    /// size, inverted watermarks), found when the client is made or a request
    /// starts, never on a loop thread.
    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The setting at fault, as it is spelled in `Configuration` (`"socket.readLowWatermark"`)
        /// or `RequestOptions` (`"RequestOptions.timeout"`).
        public let setting: String
        /// What it must be, and what it was.
        public let reason: String

        /// An error for `setting`.
        public init(setting: String, reason: String) {
            self.setting = setting
            self.reason = reason
        }

        /// "invalid configuration: `setting` `reason`".
        public var description: String { "invalid configuration: \(setting) \(reason)" }

        /// The longest duration the loop's timers take: they count milliseconds in
        /// 64 bits. (Use nil where a setting allows it, for no limit at all.)
        static let longestTimer = Duration.seconds(1_000_000_000_000_000)

        static func require(_ holds: Bool, _ setting: String, _ reason: @autoclosure () -> String) throws(ConfigurationError) {
            if !holds { throw ConfigurationError(setting: setting, reason: reason()) }
        }

        /// A duration that is set must be positive and fit the loop's timers.
        static func positive(_ duration: Duration?, _ setting: String) throws(ConfigurationError) {
            guard let duration else { return }
            try require(duration > .zero && duration <= longestTimer, setting,
                        "must be longer than zero and at most \(longestTimer), not \(duration)")
        }

        /// A pair of watermarks must satisfy 0 <= low < high (`ReadBackpressure`'s rule).
        static func watermarks(low: Int, high: Int, _ lowName: String, _ highName: String) throws(ConfigurationError) {
            try require(ReadBackpressure.accepts(lowWatermark: low, highWatermark: high), lowName,
                        "must be at least 0 and below \(highName) (\(high)), not \(low)")
        }
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
