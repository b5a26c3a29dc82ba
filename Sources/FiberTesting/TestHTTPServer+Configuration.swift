import FiberRuntime

extension TestHTTPServer {
    /// How the server reads requests and closes connections. The defaults suit tests.
    public struct Configuration: Sendable {
        /// The most bytes of request line and header fields a request may have;
        /// past it the server answers `431` and closes. Default 64 KiB.
        public var maxRequestHeaderBytes = 64 * 1024
        /// The largest request body read; past it the server answers `413` and closes. Default 16 MiB.
        public var maxRequestBodyBytes = 16 * 1024 * 1024
        /// What to do with `Expect: 100-continue`. Default `.sendContinue`.
        public var expectContinue = ExpectContinue.sendContinue
        /// Closes a keep-alive connection (FIN) when no new request starts
        /// within this long after the last response, as real servers do; nil
        /// (the default) keeps idle connections until the client closes them.
        /// For testing how a client copes with a pooled connection gone stale.
        public var idleTimeout: Duration? = nil
        /// Closes a connection after it has served this many requests (the
        /// last response says `Connection: close`); nil (the default) for no limit.
        public var maxRequestsPerConnection: Int? = nil
        /// Whether every request is kept for `recordedRequests()`; turn off for
        /// long benchmarks (the counters still count). Default on.
        public var recordsRequests = true
        /// When the server closes a connection it first half-closes it (FIN)
        /// and reads what the client still sends, so that a client still
        /// writing does not get a reset that destroys the response it has not
        /// read yet; after this long it closes anyway. Default 2 s.
        public var lingerTimeout: Duration = .seconds(2)
        /// Serves HTTPS with this server-side configuration (its identity is the
        /// certificate the test made); nil (the default) serves plain HTTP.
        public var tls: TLSConfiguration? = nil
        /// How long a client may take to finish the TLS handshake (default 30 s).
        public var tlsHandshakeTimeout: Duration = .seconds(30)
        /// Options for accepted sockets (`TCP_NODELAY` is on by default).
        public var socketOptions = SocketOptions()

        /// The defaults.
        public init() {}
    }

    /// How the server answers `Expect: 100-continue` on an HTTP/1.1 request whose body is still to come.
    public enum ExpectContinue: Sendable {
        /// Sends `HTTP/1.1 100 Continue\r\n\r\n` before reading the body (the default).
        case sendContinue
        /// Sends nothing and waits for the body, as a server that ignores the
        /// expectation (the client must send the body after its own timeout).
        case ignore
        /// Answers at once with this final response without reading the body,
        /// then closes the connection (the request is recorded with an empty body
        /// and its handler is not called).
        case reject(TestResponse)
    }
}

/// Failures of the test server's helpers.
public struct TestHTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for people.
    public let description: String

    init(_ description: String) { self.description = description }
}
