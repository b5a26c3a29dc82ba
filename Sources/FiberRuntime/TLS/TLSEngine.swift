import COpenSSL

/// One TLS connection's state in OpenSSL (`SSL`) between two memory BIOs:
/// ciphertext is fed in and taken out by the owner, which does the I/O. No
/// call here blocks or touches a socket, which is what lets the event loop
/// drive TLS and lets tests run two engines against each other in memory.
///
/// Used on one thread at a time (its stream's loop).
final class TLSEngine {
    let context: TLSContext
    /// The host name or IP literal the peer must prove (client side), for SNI, verification and pins.
    let host: String?
    /// `host:port`, the key of resumable sessions.
    private let peer: String
    private let ssl: OpaquePointer
    private let inbound: OpaquePointer   // network → OpenSSL
    private let outbound: OpaquePointer  // OpenSSL → network
    private(set) var isHandshakeComplete = false
    /// What the verification callback saw when it refused the peer's chain, for the message.
    var verificationFailure: VerificationFailure?

    /// Sets up the client (or server) side; nothing is sent until `handshake()`.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` if OpenSSL refuses the host name.
    init(context: TLSContext, host: String?, port: Int) throws {
        guard let ssl = SSL_new(context.pointer) else {
            throw TLSError(.invalidConfiguration, "OpenSSL could not create a connection", openSSLErrors: OpenSSLErrors.drain())
        }
        let inbound = BIO_new(BIO_s_mem())!
        let outbound = BIO_new(BIO_s_mem())!
        // An empty inbound BIO means "wait for more", not "end of stream".
        _ = fiber_bio_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)  // the SSL owns both BIOs now
        self.context = context
        self.host = host
        self.peer = "\(host ?? ""):\(port)"
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        _ = fiber_ssl_set_app_data(ssl, Unmanaged.passUnretained(self).toOpaque())
        if context.configuration.role == .server {
            SSL_set_accept_state(ssl)
            return
        }
        SSL_set_connect_state(ssl)
        let isIPLiteral = host.map { SocketAddress(ipLiteral: $0, port: port) != nil } ?? false
        if let host, context.configuration.verification == .full {
            // Subject alternative names only, never the subject's common name, and no partial
            // wildcards such as `w*.example.com` (RFC 9525 §6.3).
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            // Checked: a host OpenSSL refused to take would leave the chain verified against no name at all.
            let accepted = isIPLiteral
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), Self.bareIPLiteral(host)) == 1
                : SSL_set1_host(ssl, host) == 1
            guard accepted else {
                throw TLSError(.invalidConfiguration, "cannot verify a certificate against the host \"\(host)\"",
                               host: host, openSSLErrors: OpenSSLErrors.drain())
            }
        }
        // SNI carries names only, never IP literals (RFC 6066 §3).
        if let host, !isIPLiteral {
            _ = fiber_ssl_set_host_name(ssl, host)
        }
        if context.configuration.sessionResumption, let session = context.sessions.session(for: peer) {
            SSL_set_session(ssl, session.pointer)
        }
    }

    deinit { SSL_free(ssl) }

    /// An IP literal as OpenSSL reads one: without the brackets of a URL's
    /// IPv6 host and without a zone (`fe80::1%eth0`), which a certificate never names.
    static func bareIPLiteral(_ host: String) -> String {
        var literal = Substring(host)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if let zone = literal.firstIndex(of: "%") { literal = literal[..<zone] }
        return String(literal)
    }

    // MARK: Ciphertext in and out

    /// Hands bytes from the network to OpenSSL.
    func feed(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        BIO_write(inbound, base, Int32(ciphertext.count))
    }

    /// Bytes OpenSSL wants sent, if any.
    var hasOutput: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// Calls `body` with the bytes waiting to be sent, then drops them all
    /// (`body` must send or copy them).
    func drainOutput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var data: UnsafeMutablePointer<CChar>? = nil
        let count = fiber_bio_mem_data(outbound, &data)
        defer { _ = BIO_ctrl(outbound, BIO_CTRL_RESET, 0, nil) }
        return try body(UnsafeRawBufferPointer(start: data, count: count > 0 ? count : 0))
    }

    // MARK: Handshake

    /// Advances the handshake with what has been fed. Returns true once it is
    /// complete, verified and the pins checked; false when it needs more bytes
    /// (send `drainOutput` first either way).
    ///
    /// - Throws: `TLSError`, with the kind of certificate or handshake failure.
    func handshake() throws -> Bool {
        guard !isHandshakeComplete else { return true }
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            try checkPins()
            isHandshakeComplete = true
            return true
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return false }
        throw failure(during: "handshake")
    }

    // MARK: Application data

    /// What `readPlaintext` found at the end of the fed bytes.
    enum ReadEnd {
        /// Everything fed was decrypted; more may come.
        case needMore
        /// The peer sent `close_notify`: no more data will come.
        case closeNotify
    }

    /// Decrypts what has been fed into `buffer`, calling `deliver` with each
    /// filled part, until OpenSSL needs more bytes or `deliver` returns false.
    ///
    /// - Throws: `TLSError` `.protocolError` when a record is corrupt or an alert arrives.
    func readPlaintext(into buffer: UnsafeMutableRawBufferPointer,
                       _ deliver: (UnsafeRawBufferPointer) -> Bool) throws -> ReadEnd {
        var filled = 0
        while true {
            var count = 0
            let result = SSL_read_ex(ssl, buffer.baseAddress! + filled, buffer.count - filled, &count)
            if result == 1 {
                filled += count
                if filled == buffer.count {
                    guard deliver(UnsafeRawBufferPointer(buffer)) else { return .needMore }
                    filled = 0
                }
                continue
            }
            let error = SSL_get_error(ssl, result)
            if filled > 0, !deliver(UnsafeRawBufferPointer(rebasing: buffer[..<filled])) { return .needMore }
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needMore
            case SSL_ERROR_ZERO_RETURN: return .closeNotify
            default: throw failure(during: "read")
            }
        }
    }

    /// Encrypts `plaintext` into the outbound BIO (taken with `drainOutput`).
    ///
    /// - Throws: `TLSError` `.protocolError` if the connection is no longer writable.
    func write(_ plaintext: UnsafeRawBufferPointer) throws {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return }
        var written = 0
        // A memory BIO takes everything, so one call writes it all.
        guard SSL_write_ex(ssl, base, plaintext.count, &written) == 1, written == plaintext.count else {
            throw failure(during: "write")
        }
    }

    /// Queues `close_notify` (taken with `drainOutput`).
    func shutdown() {
        guard isHandshakeComplete else { return }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Whether the peer's `close_notify` arrived: an end of stream without it may have cut data.
    var receivedCloseNotify: Bool { SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN != 0 }

    // MARK: What was negotiated

    /// The ALPN protocol the peer chose, if any.
    var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// True when this connection resumed an earlier session (an abbreviated handshake).
    var isResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// "TLSv1.3", "TLSv1.2".
    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The certificates the peer presented, leaf first.
    var peerChain: [X509Certificate] {
        var chain: [X509Certificate] = []
        // On a server, OpenSSL's chain of the client omits the leaf.
        if context.configuration.role == .server, let leaf = SSL_get0_peer_certificate(ssl), let certificate = X509Certificate(leaf) {
            chain.append(certificate)
        }
        if let stack = SSL_get_peer_cert_chain(ssl) {
            chain += (0..<fiber_x509_stack_count(stack)).compactMap { fiber_x509_stack_at(stack, $0).flatMap(X509Certificate.init) }
        }
        return chain
    }

    // MARK: Sessions

    /// OpenSSL's "a new session is ready" hook: keep it for this peer.
    static let newSessionCallback: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
        guard let ssl, let session, let raw = fiber_ssl_get_app_data(ssl) else { return 0 }
        let engine = Unmanaged<TLSEngine>.fromOpaque(raw).takeUnretainedValue()
        guard SSL_SESSION_is_resumable(session) == 1 else { return 0 }
        engine.context.sessions.store(TLSSessionCache.Session(taking: session), for: engine.peer)
        return 1  // the cache owns the reference now
    }

    // MARK: Errors

    private func checkPins() throws {
        guard context.configuration.role == .client, let host else { return }
        let pins = context.pinnedHosts.pins(for: host)
        guard !pins.isEmpty else { return }
        let chain = peerChain
        if chain.contains(where: { certificate in pins.contains { $0.matches(certificate) } }) { return }
        let names = peerCertificateNames.joined(separator: " ← ")
        throw TLSError(.pinMismatch, "none of the \(chain.count) certificates presented (\(names)) matches the \(pins.count) pins for \(host); nothing was sent",
                       host: host)
    }

    /// The names of the certificates a server presented, leaf first, for messages.
    private var peerCertificateNames: [String] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        return (0..<fiber_x509_stack_count(stack)).compactMap { fiber_x509_stack_at(stack, $0) }.map { CertificateFacts($0).name }
    }

    /// The `TLSError` that explains the last failed call, from the verify result or OpenSSL's error queue.
    private func failure(during operation: String) -> TLSError {
        let reason = OpenSSLErrors.firstReason()
        let errors = OpenSSLErrors.drain()
        let verify = Int32(SSL_get_verify_result(ssl))
        if context.configuration.role == .client, verify != X509_V_OK, context.configuration.verification == .full {
            return certificateFailure(verify, errors: errors)
        }
        let hasIdentity = context.configuration.identity != nil
        let (kind, detail): (TLSError.Kind, String) = switch reason {
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
            (.clientCertificateRequired, "the server requires a client certificate and none was configured")
        case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE where !hasIdentity && context.configuration.role == .client:
            (.handshakeFailed, "the server refused the handshake (no common cipher, or it wants a client certificate)")
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_TLSV1_ALERT_UNKNOWN_CA, SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED,
             SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE, SSL_R_TLSV1_ALERT_ACCESS_DENIED:
            hasIdentity && context.configuration.role == .client
                ? (.clientCertificateRejected, "the server refused the client certificate")
                : (.handshakeFailed, "the peer refused the certificate")
        case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
            (.peerCertificateMissing, "the client presented no certificate, and one is required")
        case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE:
            (.protocolVersion, "no TLS version in common (this side allows \(Self.name(context.configuration.minimumVersion)) to \(Self.name(context.configuration.maximumVersion)))")
        case SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG:
            (.handshakeFailed, "the peer does not speak TLS here (plain HTTP on a TLS port?)")
        default:
            isHandshakeComplete
                ? (.protocolError, "the \(operation) failed")
                : (.handshakeFailed, "the \(operation) failed")
        }
        return TLSError(kind, detail, host: host, openSSLErrors: errors)
    }

    private static func name(_ version: TLSConfiguration.Version) -> String {
        switch version {
        case .tls12: "TLS 1.2"
        case .tls13: "TLS 1.3"
        }
    }

    private func certificateFailure(_ code: Int32, errors: [String]) -> TLSError {
        let leaf = SSL_get_peer_cert_chain(ssl).flatMap { fiber_x509_stack_at($0, 0) }.map(CertificateFacts.init)
        let refusal = CertificateRefusal(code: code, failure: verificationFailure, leaf: leaf, host: host)
        return TLSError(refusal.kind, refusal.sentence, host: host, verifyCode: code, openSSLErrors: errors)
    }
}
