/// A failure of an HTTP exchange, with what a caller can act on (`kind`) and
/// what a person needs to read (`detail`, the URL, the transport's error).
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a small open set of values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The URL is not an absolute http(s) URL.
        public static let invalidURL = Kind("invalid URL")
        /// A header name or value may not be sent (a control byte other than a tab in a value, or a name that is not a token).
        public static let invalidHeader = Kind("invalid request header")
        /// The response broke HTTP/1.1: bad status line, bad chunk size, conflicting framing, …
        public static let malformedResponse = Kind("malformed response")
        /// The response head, or the trailer section after the body, was larger than the limit.
        public static let headersTooLarge = Kind("response headers too large")
        /// The response body was larger than the limit.
        public static let bodyTooLarge = Kind("response body too large")
        /// The compressed body was corrupt, or inflated past the size or ratio limit.
        public static let decompressionFailed = Kind("decompression failed")
        /// More redirects than allowed.
        public static let tooManyRedirects = Kind("too many redirects")
        /// A redirect led back to a URL already visited.
        public static let redirectLoop = Kind("redirect loop")
        /// A redirect from https to http, which is refused unless allowed.
        public static let insecureRedirect = Kind("redirect from https to http")
        /// The connection closed before the response was complete.
        public static let connectionClosed = Kind("connection closed before the response was complete")
        /// The whole request took longer than its deadline (`detail` says in which phase:
        /// waiting for a connection, or the exchange).
        public static let deadlineExceeded = Kind("request deadline exceeded")
        /// No bytes arrived for longer than the read-idle timeout.
        public static let readTimeout = Kind("read timed out")
        /// The final response head did not arrive within the response-head
        /// timeout of sending the request (a slow, dripping or stalling server).
        public static let responseHeadTimeout = Kind("response head timed out")
        /// The client was shut down.
        public static let shutdown = Kind("client shut down")
        /// A socket failed: `transport` says how (refused, reset, DNS, connect timeout, …).
        public static let transport = Kind("transport error")
        /// TLS failed: a certificate refused, a pin mismatch, a handshake the
        /// server refused, a connection cut without `close_notify` (`tls` says which).
        public static let tls = Kind("TLS failure")
        /// A proxy would not carry the request: unreachable, a refused tunnel,
        /// credentials wanted or refused, a malformed reply, silence (`proxy` says which).
        public static let proxy = Kind("proxy failure")
        /// The caller's task was cancelled.
        public static let cancelled = Kind("cancelled")
        /// A request the client cannot send (unsupported body, upgrade, …).
        public static let unsupported = Kind("unsupported request")
        /// The request body could not be sent as given: a file missing or unreadable
        /// (`detail` names it), a file whose size changed while it was sent, a stream
        /// that threw or yielded other than its declared length, a stream read once
        /// asked to be sent again.
        public static let requestBody = Kind("request body failed")
        /// HTTP/2 failed: the server reset the stream or went away, broke the
        /// protocol, or sent more frames or header data than the limits allow
        /// (`http2ErrorCode` holds the HTTP/2 error code when there is one).
        public static let http2 = Kind("HTTP/2 error")
        /// A streamed body's trailers were asked for before the body was read to its end.
        public static let trailersNotReady = Kind("trailers asked for before the end of the body")
    }

    /// What went wrong.
    public let kind: Kind
    /// More about it, for people.
    public let detail: String?
    /// The URL of the request, when known.
    public internal(set) var url: String?
    /// The socket error underneath, for `.transport` (and connect timeouts).
    public let transport: TransportError?
    /// The TLS failure underneath, for `.tls`.
    public var tls: TLSError? { transport?.tls }
    /// The HTTP/2 error code (RFC 9113 §7) for `.http2`: the server's, in its
    /// RST_STREAM or GOAWAY, or the one the client sent when it closed the
    /// connection (`0xb` ENHANCE_YOUR_CALM for a flood, `0x1` PROTOCOL_ERROR).
    public internal(set) var http2ErrorCode: UInt32?
    /// The proxy's failure, for `.proxy`.
    public let proxy: ProxyFailure?
    /// Set by a connection when a reused connection died before any response
    /// byte and the request was idempotent or provably not sent: one retry on
    /// a new connection is safe.
    var mayRetryOnNewConnection = false

    init(_ kind: Kind, _ detail: String? = nil, url: String? = nil, transport: TransportError? = nil,
         proxy: ProxyFailure? = nil) {
        self.kind = kind
        self.detail = detail
        self.url = url
        self.transport = transport
        self.proxy = proxy
    }

    static func invalidURL(_ url: String) -> HTTPClientError { HTTPClientError(.invalidURL, url: url) }

    static func wrapping(_ error: any Error, url: String) -> HTTPClientError {
        switch error {
        case let error as HTTPClientError: error.url == nil ? error.at(url) : error
        case let error as TransportError: HTTPClientError(error.kind == .tls ? .tls : .transport, url: url, transport: error)
        case let error as TLSError: HTTPClientError(.tls, url: url, transport: .tls(error, operation: "TLS handshake"))
        case let error as ProxyFailure: HTTPClientError(.proxy, url: url, transport: error.transport, proxy: error)
        case is CancellationError: HTTPClientError(.cancelled, url: url)
        case let error as DeadlineExceeded: HTTPClientError(.deadlineExceeded, "after \(error.timeout)", url: url)
        default: HTTPClientError(.transport, "\(error)", url: url)
        }
    }

    /// The same error for `url`, with everything else it carries.
    func at(_ url: String) -> HTTPClientError {
        var error = self
        error.url = url
        return error
    }

    /// `errorDescription`'s sentence and URL, then the socket's or OpenSSL's words in brackets.
    public var description: String { composedDescription }
}
