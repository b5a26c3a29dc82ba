/// A failure of a socket, a connection attempt or a name lookup, with its cause.
///
/// `kind` says what happened in terms a caller can act on; `operation`,
/// `host`, `address` and the libuv error name (`codeName`, e.g. `ECONNREFUSED`)
/// say where, for logs and people. `description` is one sentence, then the
/// system's (or OpenSSL's) words in brackets; `localizedDescription` is the
/// sentence alone.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a small open set of values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// Nothing listens at the address (`ECONNREFUSED`).
        public static let connectionRefused = Kind("connection refused")
        /// The peer reset the connection (`ECONNRESET`, `EPIPE`).
        public static let connectionReset = Kind("connection reset by peer")
        /// No route to the network or host (`ENETUNREACH`, `EHOSTUNREACH`, `EADDRNOTAVAIL`).
        public static let unreachable = Kind("network or host unreachable")
        /// The host name did not resolve (`host` says which).
        public static let dnsFailure = Kind("name resolution failed")
        /// A deadline passed: connect timeout, or the kernel's own `ETIMEDOUT`.
        public static let timeout = Kind("timed out")
        /// The peer closed the connection while more was expected.
        public static let closedByPeer = Kind("closed by peer")
        /// The socket was already closed on this side.
        public static let closed = Kind("socket closed")
        /// The event loop that owns the socket was shut down.
        public static let eventLoopShutdown = Kind("event loop shut down")
        /// The local address is taken (`EADDRINUSE`).
        public static let addressInUse = Kind("address in use")
        /// TLS failed after the handshake (`tls` says how): a corrupt record, an alert, a cut without `close_notify`.
        public static let tls = Kind("TLS failure")
        /// No Unix domain socket exists at the path (`ENOENT`); `address` names it.
        public static let noSuchSocket = Kind("no such socket")
        /// The path cannot name a Unix domain socket (too long for `sun_path`, empty, a NUL); `address` names it.
        public static let invalidSocketPath = Kind("invalid socket path")
        /// Any other system error; `codeName` holds its libuv name.
        public static let other = Kind("system error")
    }

    /// What went wrong.
    public let kind: Kind
    /// The operation that failed: `connect`, `read`, `write`, `getaddrinfo`, …
    public let operation: String
    /// The host name involved, when there is one.
    public let host: String?
    /// The socket address involved, when there is one.
    public let address: String?
    /// libuv's negative error code, when the failure came from the system.
    public let code: Int32?
    /// libuv's name for `code`, such as `ECONNREFUSED` or `EAI_NONAME`.
    public let codeName: String?
    /// A sentence from the system describing `code`.
    public let systemMessage: String?
    /// The TLS failure, for kind `.tls`.
    public let tls: TLSError?

    /// An error of `kind` during `operation`, with what is known of where and why.
    public init(
        _ kind: Kind, operation: String, host: String? = nil, address: String? = nil,
        code: Int32? = nil, codeName: String? = nil, systemMessage: String? = nil, tls: TLSError? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.host = host
        self.address = address
        self.code = code
        self.codeName = codeName
        self.systemMessage = systemMessage
        self.tls = tls
    }

    /// A TLS failure during `operation`.
    public static func tls(_ error: TLSError, operation: String) -> TransportError {
        TransportError(.tls, operation: operation, host: error.host, tls: error)
    }

    /// The sentence, then the system's or OpenSSL's words in brackets.
    public var description: String {
        let more = details
        return more.isEmpty ? summary : "\(summary) [\(more.joined(separator: "; "))]"
    }

    /// One sentence: what failed, where. A TLS failure is the TLS error's own sentence.
    var summary: String {
        if let tls { return tls.summary }
        let place = [host.map { "host \($0)" }, address.map { "address \($0)" }].compactMap { $0 }
        return "\(operation) failed: \(kind)" + (place.isEmpty ? "" : " (\(place.joined(separator: ", ")))")
    }

    /// What follows the sentence: the libuv error and the system's message, or the TLS error's details.
    var details: [String] {
        if let tls { return tls.details + (operation == "TLS handshake" ? [] : ["during \(operation)"]) }
        if let codeName { return [systemMessage.map { "\(codeName): \($0)" } ?? codeName] }
        return systemMessage.map { [$0] } ?? []
    }

    /// The same error with another operation name, host or address (the others kept).
    func with(operation: String? = nil, host: String? = nil, address: String? = nil) -> TransportError {
        TransportError(kind, operation: operation ?? self.operation, host: host ?? self.host, address: address ?? self.address,
                       code: code, codeName: codeName, systemMessage: systemMessage, tls: tls)
    }
}
