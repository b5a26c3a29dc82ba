import FiberRuntime
import Foundation

extension Fiber {
    /// Everything a client is made of, set in the builder:
    ///
    /// ```swift
    /// let fiber = Fiber("https://api.example.com") {
    ///     $0.interceptors = [auth, retry, logging]
    ///     $0.defaultHeaders = ["Accept": "application/json"]
    ///     $0.timeout = 30
    ///     $0.validateStatus = { (200..<400).contains($0) }
    /// }
    /// ```
    public struct Configuration: Sendable {
        /// The pipeline, first outermost.
        public var interceptors: [any Interceptor] = []
        /// The transport (nil: the runtime's HTTP/1.1 client on the shared loops, made with `http`).
        public var transport: (any FiberTransport)?
        /// How the built-in transport connects, pools, verifies TLS, times out and bounds
        /// responses: `http.maxConnectionsPerHost` (per client, default 64), `http.tls`
        /// (trust roots, pins, client identity), `http.readIdleTimeout`,
        /// `http.maxResponseBodySize`, `http.socket.connectTimeout`, redirects and more.
        ///
        /// Left alone, the client shares `HTTPTransport.shared` (and its connections) with
        /// every other client that leaves it alone. Once any of it is set, the client gets
        /// a transport of its own on the shared loops: its own pools, so its limits hold
        /// for it alone; `shutdown()` on `HTTPTransport`, or the idle timeout, closes them.
        /// Ignored when `transport` is set (configure that transport instead). A value that
        /// cannot work (a zero timeout, a limit below 1) makes every request throw
        /// `FiberError.networkError` wrapping `Fiber.ConfigurationError`;
        /// `http.validate()` finds it at start-up.
        public var http = HTTPConfiguration() {
            didSet { setsHTTP = true }
        }
        /// Whether `http` was set, so the client needs a transport of its own.
        var setsHTTP = false
        /// Header fields added to every request that does not set them itself.
        public var defaultHeaders: HTTPHeaders = [:]
        /// Seconds a whole request may take, retries and waits included, unless
        /// the request sets its own (nil: no limit but the transport's read timeout).
        public var timeout: TimeInterval?
        /// Decodes `FiberResponse.decode()` and `request(_:)` results.
        public var decoder = JSONDecoder()
        /// Encodes the `Encodable` bodies of `post`, `put` and `patch`.
        public var encoder = JSONEncoder()
        /// Receives the client's own lines, all at `.debug`: each request, its response or its
        /// failure (never `.error`: a failure is thrown to the caller, who decides what it is).
        public var logger: (any FiberLogger)?
        /// When set, statuses it rejects make `send` throw `FiberError.httpError`,
        /// and `FiberResponse.validateStatus()` uses it instead of 2xx.
        public var validateStatus: (@Sendable (Int) -> Bool)?
        /// Constants: trace ID generator, JSON content type, … (default: `FiberDefaults.shared` when the configuration is made).
        public var defaults: FiberDefaults = .shared
        /// Receives one finished `Span` per request, when set.
        public var traceExporter: (any TraceExporter)?
        /// Send the trace context with every request (default on). With a swift-distributed-tracing
        /// instrument installed, the instrument's fields for the attempt's span; without one, a W3C
        /// `traceparent` for `TraceContext.traceID` with the sampled flag clear (Fiber records
        /// nothing itself), unless the request has one. Off: neither.
        public var propagatesTraceContext = true
        /// When set, a request meets `FiberError.networkError(underlying: OfflineError)`
        /// at once, before any interceptor runs, while the monitor reports the machine
        /// offline; requests to loopback hosts (`localhost`, 127.0.0.0/8, `::1`) are
        /// sent anyway. Start the monitor yourself (`startMonitoring()`); one that is
        /// stopped reports online. Downloads of `FiberDownloader` follow the same rule.
        public var connectionMonitor: ConnectionMonitor?
        /// Keeps cookies for this client when set (default nil: no cookies are stored or
        /// sent but those a request sets itself). Every hop of a request, redirects
        /// included, sends the cookies that match it and stores what it sets; a
        /// WebSocket handshake too. Clients given the same jar share its cookies. See
        /// `CookieJar` and `Docs/Cookies.md`.
        public var cookieJar: CookieJar?

        /// The defaults above.
        public init() {}
    }
}
