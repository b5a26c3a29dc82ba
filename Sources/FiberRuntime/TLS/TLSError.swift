import COpenSSL

/// A TLS failure: a certificate the client refused, a handshake the peer
/// refused, a configuration OpenSSL could not load, or a connection cut
/// without `close_notify`.
///
/// `kind` is what a caller acts on; `detail` is a sentence for people, which
/// names the certificate where verification failed (`CN=…`, and its depth
/// in the chain when it is not the leaf); `verifyCode` and `openSSLErrors`
/// are what OpenSSL said, for logs. `description` is that sentence with the
/// host, then the rest in brackets; `localizedDescription` is the sentence alone.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a small open set of values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A certificate of the chain has expired (`detail` names which: the leaf or a CA).
        public static let certificateExpired = Kind("certificate expired")
        /// A certificate of the chain is not valid yet (`detail` names which).
        public static let certificateNotYetValid = Kind("certificate not yet valid")
        /// The certificate is valid, but its subject alternative names do not
        /// include the host name or IP address asked for (the subject's common
        /// name is never used, RFC 9525 §6.3).
        public static let hostnameMismatch = Kind("certificate does not match the host")
        /// The server presented a self-signed certificate that is not trusted.
        public static let selfSignedCertificate = Kind("self-signed certificate")
        /// The chain ends in a CA certificate that is not trusted.
        public static let untrustedRoot = Kind("certificate authority not trusted")
        /// No certificate of the issuer was found: an intermediate the server
        /// did not send, or a root missing from the trust roots (`detail`
        /// names the issuer and says which, as far as it can be told).
        public static let issuerNotFound = Kind("issuer certificate not found")
        /// Any other reason the chain did not verify (`verifyCode` says which):
        /// a CA certificate that is not a CA, a path length constraint broken,
        /// a leaf whose key usage does not allow the handshake (`digitalSignature`
        /// for TLS 1.3 and (EC)DHE, `keyEncipherment` for RSA key exchange), …
        public static let certificateInvalid = Kind("certificate invalid")
        /// No certificate of the presented chain matches the host's pins.
        public static let pinMismatch = Kind("certificate pin mismatch")
        /// The server requires a client certificate and none was given.
        public static let clientCertificateRequired = Kind("client certificate required")
        /// The server refused the client certificate given.
        public static let clientCertificateRejected = Kind("client certificate rejected")
        /// A server refused a client that presented no valid certificate.
        public static let peerCertificateMissing = Kind("peer presented no valid certificate")
        /// No protocol version in common (for example a server stuck at TLS 1.0).
        public static let protocolVersion = Kind("no common protocol version")
        /// The handshake failed for another reason (alert, cipher mismatch, garbage).
        public static let handshakeFailed = Kind("handshake failed")
        /// The handshake did not finish in time.
        public static let handshakeTimeout = Kind("handshake timed out")
        /// The connection ended without `close_notify`: what came before may be cut short.
        public static let truncated = Kind("connection closed without close_notify")
        /// The peer sent records that failed to decrypt or parse after the handshake.
        public static let protocolError = Kind("TLS protocol error")
        /// A certificate, key, passphrase, pin or cipher setting could not be used.
        public static let invalidConfiguration = Kind("invalid TLS configuration")
    }

    /// What went wrong.
    public let kind: Kind
    /// A sentence for people: what failed, and which certificate.
    public let detail: String
    /// The host the connection was for, when known.
    public let host: String?
    /// OpenSSL's `X509_V_ERR_*` code when a certificate was refused.
    public let verifyCode: Int32?
    /// OpenSSL's error queue at the failure, as text.
    public let openSSLErrors: [String]

    /// An error of `kind`, with a sentence and what OpenSSL said.
    public init(_ kind: Kind, _ detail: String, host: String? = nil, verifyCode: Int32? = nil, openSSLErrors: [String] = []) {
        self.kind = kind
        self.detail = detail
        self.host = host
        self.verifyCode = verifyCode
        self.openSSLErrors = openSSLErrors
    }

    /// The same error for `host`.
    func at(host: String?) -> TLSError {
        TLSError(kind, detail, host: host ?? self.host, verifyCode: verifyCode, openSSLErrors: openSSLErrors)
    }

    /// The sentence, then the kind and what OpenSSL said, in brackets.
    public var description: String {
        "\(summary) [\(details.joined(separator: "; "))]"
    }

    /// One sentence: `TLS: ` and `detail`, with the host when `detail` does not name it.
    var summary: String {
        guard let host, !detail.contains(host) else { return "TLS: \(detail)" }
        return "TLS with \(host): \(detail)"
    }

    /// What follows the sentence: the kind, OpenSSL's verdict on the chain, OpenSSL's error queue.
    var details: [String] {
        var parts = ["\(kind)"]
        if let verifyCode { parts.append("X509 error \(verifyCode): \(CertificateRefusal.reason(verifyCode))") }
        return parts + openSSLErrors
    }
}
