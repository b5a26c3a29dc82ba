import FiberRuntime

/// Every failure of the WebSocket client, typed.
///
/// `kind` says what failed; protocol failures carry the close code that was
/// sent to the peer (`closeCode`), a failed upgrade the HTTP status and body.
/// The lead bridges this to `FiberError` in the `Fiber` module.
public struct WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure; more kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The URL is not a `ws://` or `wss://` URL.
        public static let invalidURL = Kind("invalid URL")
        /// TLS failed for `wss://`: a refused certificate, a pin mismatch, a handshake the server refused (`tls` says which).
        public static let tls = Kind("TLS failed")
        /// The server answered the upgrade with something other than 101 (see `status`, `body`).
        public static let upgradeFailed = Kind("upgrade failed")
        /// The 101 response broke RFC 6455 §4.1 (accept key, headers, subprotocol, extensions).
        public static let handshakeFailed = Kind("handshake failed")
        /// The peer broke RFC 6455 or RFC 7692 (close code 1002).
        public static let protocolViolation = Kind("protocol violation")
        /// A text message or close reason was not UTF-8 (close code 1007).
        public static let invalidUTF8 = Kind("invalid UTF-8")
        /// A frame or message passed the configured size limit (close code 1009).
        public static let messageTooBig = Kind("message too big")
        /// The peer stopped answering pings.
        public static let pingTimeout = Kind("ping timeout")
        /// The peer did not complete the close handshake in time.
        public static let closeTimeout = Kind("close timeout")
        /// The connection is closing or closed: nothing more can be sent.
        public static let notConnected = Kind("not connected")
        /// The socket failed (`transport` holds the runtime's error).
        public static let transport = Kind("transport failed")
        /// A message could not be encoded or decoded as JSON.
        public static let coding = Kind("coding failed")
        /// The header given for the handshake may not be sent.
        public static let invalidHeader = Kind("invalid header")
        /// A `WebSocketConfiguration` value cannot work (a zero timeout, inverted watermarks, …):
        /// found before anything connects.
        public static let invalidConfiguration = Kind("invalid configuration")
        /// The proxy would not open a tunnel (`proxy` says why).
        public static let proxy = Kind("proxy failed")
    }

    /// What failed.
    public let kind: Kind
    /// Details for people.
    public let message: String
    /// The close code sent to the peer for this failure, if one was.
    public let closeCode: UInt16?
    /// The HTTP status of a failed upgrade.
    public let status: Int?
    /// The body of a failed upgrade (at most 64 KiB).
    public let body: [UInt8]?
    /// The header fields of a failed upgrade's answer (`Retry-After`, `WWW-Authenticate`, …).
    public let headers: HTTPHeaders?
    /// The socket's error, for `.transport`.
    public let transport: TransportError?
    /// The proxy's failure, for `.proxy`.
    public let proxy: ProxyFailure?

    /// The TLS failure underneath, for `.tls` (and a `.transport` failure after the handshake).
    public var tls: TLSError? { transport?.tls }

    /// An error of `kind`, with a message for people and what else is known.
    public init(_ kind: Kind, _ message: String, closeCode: UInt16? = nil, status: Int? = nil,
                body: [UInt8]? = nil, headers: HTTPHeaders? = nil, transport: TransportError? = nil,
                proxy: ProxyFailure? = nil) {
        self.proxy = proxy
        self.kind = kind
        self.message = message
        self.closeCode = closeCode
        self.status = status
        self.body = body
        self.headers = headers
        self.transport = transport
    }

    /// A protocol violation that closes the connection with 1002.
    static func protocolError(_ message: String) -> WebSocketError {
        WebSocketError(.protocolViolation, message, closeCode: WebSocketCloseCode.protocolError)
    }

    /// `errorDescription`'s sentence with the close code and the socket's
    /// error in full; a TLS failure is the TLS error's own text, so "TLS" and
    /// the host are not said twice.
    public var description: String {
        if kind == .tls, let transport, transport.tls != nil {
            return "WebSocket \(transport)" + (closeCode.map { " (close \($0))" } ?? "")
        }
        var text = "WebSocket \(kind): \(message)"
        if let closeCode { text += " (close \(closeCode))" }
        if let status { text += " (HTTP \(status))" }
        if let transport { text += " [\(transport)]" }
        return text
    }
}
