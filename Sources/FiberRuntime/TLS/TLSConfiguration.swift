/// How a TLS connection is set up: what is trusted, what is presented, which
/// versions and ciphers, which pins. A value: equal configurations share one
/// OpenSSL context (and one session cache) in the process.
///
/// The defaults are the safe ones: the system's trust store, full
/// verification of the chain and of the host name or IP address, TLS 1.2 at
/// least, ALPN `http/1.1`, session resumption on.
public struct TLSConfiguration: Sendable, Hashable {
    /// Which certificate authorities are trusted.
    public enum TrustRoots: Sendable, Hashable {
        /// The system's store (Debian: `/etc/ssl/certs`).
        case system
        /// The CA certificates in these PEM bytes (one or more certificates).
        case pem([UInt8])
        /// The CA certificates in this PEM file.
        case file(String)
    }

    /// A protocol version floor or ceiling.
    public enum Version: Sendable, Hashable, Comparable {
        case tls12
        case tls13
    }

    /// How the peer's certificate is checked.
    public enum Verification: Sendable, Hashable {
        /// The chain up to a trusted root, validity dates and the host name or IP address.
        case full
        /// Nothing at all: any certificate, any name. For a lab, never for production.
        /// Its name is long on purpose: `.insecureNoVerification` stands out in a review.
        case insecureNoVerification
    }

    /// A certificate chain and its private key, presented to the peer: the
    /// client certificate of mutual TLS, or a server's own certificate.
    public struct Identity: Sendable, Hashable {
        /// The leaf certificate first, then any intermediates, in PEM.
        public enum Source: Sendable, Hashable {
            case pem([UInt8])
            case file(String)
        }

        public var certificateChain: Source
        public var privateKey: Source
        /// The passphrase of an encrypted private key.
        public var passphrase: String?

        /// An identity from PEM sources; `passphrase` opens an encrypted key.
        public init(certificateChain: Source, privateKey: Source, passphrase: String? = nil) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
            self.passphrase = passphrase
        }
    }

    /// Client or server side.
    public enum Role: Sendable, Hashable {
        case client
        case server
    }

    /// Client (the default) or server side.
    public var role: Role = .client
    /// The CAs that can vouch for the peer (default: the system's).
    public var trustRoots: TrustRoots = .system
    /// How the peer is verified (default `.full`).
    public var verification: Verification = .full
    /// The lowest version offered (default TLS 1.2).
    public var minimumVersion: Version = .tls12
    /// The highest version offered (default: TLS 1.3).
    public var maximumVersion: Version = .tls13
    /// OpenSSL cipher list for TLS 1.2 (nil: OpenSSL's secure default).
    public var cipherList: String? = nil
    /// OpenSSL cipher suites for TLS 1.3, most preferred first (nil: `defaultCipherSuites`).
    public var cipherSuites: String? = nil

    /// The TLS 1.3 suites offered unless `cipherSuites` says otherwise: OpenSSL's
    /// three defaults with AES-128-GCM first, as Go, Chrome and BoringSSL's
    /// clients offer them (OpenSSL puts AES-256-GCM first). On processors with
    /// AES instructions it is the faster of the two, by about a quarter, at a
    /// strength no attack comes near; servers that follow the client's order
    /// (nginx's default) pick it.
    public static let defaultCipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// ALPN protocols offered, most preferred first (default `http/1.1`; empty: no ALPN).
    public var applicationProtocols: [String] = ["http/1.1"]
    /// Pins per host name or IP literal. A host with pins is trusted only if
    /// a certificate of the chain it presents matches one. Keys match however
    /// the host is written: case, a trailing dot, brackets and the textual
    /// form of an IPv6 address do not matter. A key that is not a host name
    /// or an IP literal (`example.com:443`, `*.example.com`) fails the first
    /// connection with `TLSError` `.invalidConfiguration`, instead of pinning nothing.
    public var pins: [String: [CertificatePin]] = [:]
    /// The certificate and key presented to the peer (mutual TLS on a client; required on a server).
    public var identity: Identity? = nil
    /// A server asks for a client certificate and refuses a handshake without a valid one.
    public var requireClientCertificate = false
    /// Reuse sessions per host so reconnects skip the full handshake (default on).
    public var sessionResumption = true
    /// How long a client trusts a chain it verified for a host (default 5
    /// minutes; nil: verify every handshake in full). A new connection to a
    /// server presenting the same certificates for the same host
    /// then skips the chain building and signature checks, about a quarter of
    /// a full handshake's client CPU with OpenSSL 3.0. The server still proves
    /// it holds the leaf's key on every handshake, pins are still checked, and
    /// no entry outlives the earliest expiry of its chain.
    public var verifiedChainLifetime: Duration? = .seconds(300)
    /// Hand OpenSSL's record buffers (about 34 KiB a connection) back while a
    /// connection is idle (default off). On suits thousands of mostly idle
    /// connections (WebSockets); off avoids freeing and reallocating them on
    /// every request of a busy keep-alive connection.
    public var releasesIdleBuffers = false

    /// A client configuration with the safe defaults.
    public init() {}

    /// A server configuration presenting `identity`.
    public static func server(identity: Identity) -> TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.role = .server
        configuration.identity = identity
        return configuration
    }
}
