import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// An OpenSSL `SSL_CTX` built from a `TLSConfiguration`: trust store,
/// identity, versions, ciphers, ALPN and the client session cache.
///
/// Contexts are shared: `TLSContext.shared(for:)` gives every connection
/// with an equal configuration the same context, so they share loaded
/// certificates and resumable sessions.
final class TLSContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is configured once in `init` and only read
    // afterwards (OpenSSL allows that from any thread); the session cache locks.
    let pointer: OpaquePointer
    let configuration: TLSConfiguration
    let sessions = TLSSessionCache()
    /// Chains verified lately (client contexts with full verification and a cache lifetime).
    let verifiedChains: VerifiedChainCache?
    /// The configuration's pins, by canonical host.
    let pinnedHosts: PinnedHosts

    private static let cache = Locked<[TLSConfiguration: TLSContext]>([:])

    /// The process's context for `configuration`, made on first use. Files
    /// named by the configuration are read through libuv's file-system calls,
    /// so the loop never waits on the disk.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` when a file cannot be read,
    ///   or a certificate, key, passphrase, cipher setting or pin's host cannot be used.
    static func shared(for configuration: TLSConfiguration, on loop: EventLoop) async throws -> TLSContext {
        if let context = cache.withLock({ $0[configuration] }) { return context }
        let context = try TLSContext(await configuration.loadingFiles(on: loop))
        return cache.withLock { contexts in
            if let existing = contexts[configuration] { return existing }
            contexts[configuration] = context
            return context
        }
    }

    /// A new context for `configuration`.
    ///
    /// - Throws: as `shared(for:)`.
    init(_ configuration: TLSConfiguration) throws {
        let pinnedHosts = try PinnedHosts(configuration.pins)
        let method = configuration.role == .client ? TLS_client_method() : TLS_server_method()
        guard let context = SSL_CTX_new(method) else {
            throw TLSError(.invalidConfiguration, "OpenSSL could not create a context", openSSLErrors: OpenSSLErrors.drain())
        }
        self.pointer = context
        self.configuration = configuration
        self.pinnedHosts = pinnedHosts
        if configuration.role == .client, configuration.verification == .full,
           let lifetime = configuration.verifiedChainLifetime, lifetime > .zero {
            verifiedChains = VerifiedChainCache(lifetime: lifetime)
        } else {
            verifiedChains = nil
        }
        try configure()  // on failure, deinit frees the context
    }

    deinit { SSL_CTX_free(pointer) }

    private func configure() throws {
        let c = configuration
        try check(fiber_ssl_ctx_set_min_proto(pointer, c.minimumVersion.openSSL) == 1, "cannot set the minimum version")
        try check(fiber_ssl_ctx_set_max_proto(pointer, c.maximumVersion.openSSL) == 1, "cannot set the maximum version")
        if c.releasesIdleBuffers { _ = fiber_ssl_ctx_set_mode(pointer, Int(SSL_MODE_RELEASE_BUFFERS)) }
        SSL_CTX_set_options(pointer, fiber_ssl_op_no_renegotiation())
        if let list = c.cipherList {
            try check(SSL_CTX_set_cipher_list(pointer, list) == 1, "no usable cipher in \"\(list)\"")
        }
        let suites = c.cipherSuites ?? TLSConfiguration.defaultCipherSuites
        try check(SSL_CTX_set_ciphersuites(pointer, suites) == 1, "no usable TLS 1.3 cipher suite in \"\(suites)\"")
        try loadTrustRoots()
        if let identity = c.identity { try load(identity) }
        switch c.role {
        case .client:
            SSL_CTX_set_verify(pointer, c.verification == .full ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
            if c.verification == .full {
                // Unretained: the context owns the cache and outlives every use of its SSL_CTX.
                SSL_CTX_set_cert_verify_callback(pointer, Self.verifyCallback, verifiedChains.map { Unmanaged.passUnretained($0).toOpaque() })
            }
            if !c.applicationProtocols.isEmpty {
                let wire = ALPN.wireFormat(c.applicationProtocols)
                try check(SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) == 0, "bad ALPN protocol names")
            }
            if c.sessionResumption {
                // Sessions are kept per host by `TLSSessionCache`, not in OpenSSL's own store.
                _ = fiber_ssl_ctx_set_session_cache_mode(pointer, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE))
                SSL_CTX_sess_set_new_cb(pointer, TLSEngine.newSessionCallback)
            } else {
                _ = fiber_ssl_ctx_set_session_cache_mode(pointer, Int(SSL_SESS_CACHE_OFF))
            }
        case .server:
            try check(c.identity != nil, "a server needs an identity (certificate and key)")
            let mode = c.requireClientCertificate ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_NONE
            SSL_CTX_set_verify(pointer, mode, nil)
            SSL_CTX_set_alpn_select_cb(pointer, ALPN.selectHTTP11, nil)
            let sessionID: [UInt8] = Array("fiber".utf8)
            SSL_CTX_set_session_id_context(pointer, sessionID, UInt32(sessionID.count))
        }
    }

    private func loadTrustRoots() throws {
        guard configuration.verification == .full || configuration.requireClientCertificate else { return }
        switch configuration.trustRoots {
        case .system:
            try check(SSL_CTX_set_default_verify_paths(pointer) == 1, "cannot load the system's trust store")
        case .file(let path):
            throw TLSError(.invalidConfiguration, "the CA file \(path) was not loaded")
        case .pem(let bytes):
            let certificates = X509Certificate.parsePEM(bytes)
            defer { certificates.forEach { X509_free($0) } }
            try check(!certificates.isEmpty, "no CA certificate in the given PEM bytes")
            let store = SSL_CTX_get_cert_store(pointer)
            for certificate in certificates {
                try check(X509_STORE_add_cert(store, certificate) == 1, "cannot add a CA certificate")
            }
        }
    }

    private func load(_ identity: TLSConfiguration.Identity) throws {
        let chain = X509Certificate.parsePEM(try Self.read(identity.certificateChain, what: "certificate chain"))
        defer { chain.forEach { X509_free($0) } }
        guard let leaf = chain.first else {
            throw TLSError(.invalidConfiguration, "no certificate in the identity's certificate chain")
        }
        try check(SSL_CTX_use_certificate(pointer, leaf) == 1, "cannot use the identity's certificate")
        for intermediate in chain.dropFirst() {
            try check(fiber_ssl_ctx_add1_chain_cert(pointer, intermediate) == 1, "cannot add an intermediate certificate")
        }
        let keyBytes = try Self.read(identity.privateKey, what: "private key")
        let key: OpaquePointer? = keyBytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            // With no callback, OpenSSL reads the last argument as the NUL-terminated passphrase.
            // Never NULL: then it would ask for one on the terminal, and wait. An empty one
            // opens no encrypted key, and a plain key does not read it.
            return (identity.passphrase ?? "").withCString { PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: $0)) }
        }
        guard let key else {
            let errors = OpenSSLErrors.drain()
            let hint = identity.passphrase == nil ? "unreadable, or encrypted and no passphrase was given" : "unreadable, or the passphrase is wrong"
            throw TLSError(.invalidConfiguration, "the private key is \(hint)", openSSLErrors: errors)
        }
        defer { EVP_PKEY_free(key) }
        try check(SSL_CTX_use_PrivateKey(pointer, key) == 1, "cannot use the private key")
        try check(SSL_CTX_check_private_key(pointer) == 1, "the private key does not belong to the certificate")
    }

    private static func read(_ source: TLSConfiguration.Identity.Source, what: String) throws -> [UInt8] {
        guard case .pem(let bytes) = source else {
            // `shared(for:on:)` reads files before it builds a context.
            throw TLSError(.invalidConfiguration, "the \(what) file was not loaded")
        }
        return bytes
    }

    private func check(_ condition: Bool, _ detail: @autoclosure () -> String) throws {
        guard !condition else { return }
        throw TLSError(.invalidConfiguration, detail(), openSSLErrors: OpenSSLErrors.drain())
    }
}

extension TLSConfiguration.Version {
    var openSSL: Int32 {
        switch self {
        case .tls12: TLS1_2_VERSION
        case .tls13: TLS1_3_VERSION
        }
    }
}

extension TLSConfiguration {
    /// The same configuration with every file replaced by its bytes; the
    /// system's trust store too, when its bundle file can be read, so that
    /// verifying a chain never reads the disk on the loop.
    func loadingFiles(on loop: EventLoop) async throws -> TLSConfiguration {
        var loaded = self
        if verification == .full || requireClientCertificate {
            switch trustRoots {
            case .system:
                if let bundle = try? await LoopFile.readAll(Self.systemBundlePath, on: loop) { loaded.trustRoots = .pem(bundle) }
            case .file(let path):
                loaded.trustRoots = .pem(try await Self.read(path, what: "CA certificates", on: loop))
            case .pem:
                break
            }
        }
        if var identity {
            if case .file(let path) = identity.certificateChain {
                identity.certificateChain = .pem(try await Self.read(path, what: "certificate chain", on: loop))
            }
            if case .file(let path) = identity.privateKey {
                identity.privateKey = .pem(try await Self.read(path, what: "private key", on: loop))
            }
            loaded.identity = identity
        }
        return loaded
    }

    /// OpenSSL's CA bundle file (`SSL_CERT_FILE` when set).
    private static var systemBundlePath: String {
        if let name = X509_get_default_cert_file_env(), let path = getenv(name) { return String(cString: path) }
        return String(cString: X509_get_default_cert_file())
    }

    private static func read(_ path: String, what: String, on loop: EventLoop) async throws -> [UInt8] {
        do {
            return try await LoopFile.readAll(path, on: loop)
        } catch {
            throw TLSError(.invalidConfiguration, "cannot read the \(what) file \(path): \(error)")
        }
    }
}
