import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

extension TLSContext {
    /// OpenSSL's certificate-verification hook for a client context with a
    /// `VerifiedChainCache` (its argument): a chain verified lately for the
    /// same host is accepted without `X509_verify_cert`; any other runs the
    /// full verification, and a success is remembered.
    static let verifyCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { storeContext, cache in
        guard let storeContext else { return 0 }
        guard let cache, let key = verifiedChainKey(storeContext) else { return X509_verify_cert(storeContext) }
        let chains = Unmanaged<VerifiedChainCache>.fromOpaque(cache).takeUnretainedValue()
        if chains.contains(key) {
            // No chain is built, so libssl's verified chain and peer name stay unset: Fiber reads
            // neither (pins use the presented chain), and uses no CT or DANE, which would need them.
            X509_STORE_CTX_set_error(storeContext, X509_V_OK)
            return 1
        }
        let verified = X509_verify_cert(storeContext)
        if verified == 1, let notAfter = earliestNotAfter(X509_STORE_CTX_get0_chain(storeContext)) {
            chains.insert(key, chainValidUntil: notAfter)
        }
        return verified
    }

    /// SHA-256 over the length and bytes of the host the connection must
    /// prove and the SHA-256 of each presented certificate's DER as OpenSSL
    /// encodes what it parsed (the signed part exactly as received), leaf
    /// first; nil if any step fails.
    private static func verifiedChainKey(_ storeContext: OpaquePointer) -> VerifiedChainCache.Key? {
        guard let raw = X509_STORE_CTX_get_ex_data(storeContext, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let engineData = fiber_ssl_get_app_data(OpaquePointer(raw)) else { return nil }
        let engine = Unmanaged<TLSEngine>.fromOpaque(engineData).takeUnretainedValue()
        let host = Array((engine.host ?? "").utf8)
        var material = withUnsafeBytes(of: UInt32(host.count).bigEndian) { Array($0) } + host
        // The untrusted stack of a TLS handshake is the whole presented chain, leaf included.
        guard let presented = X509_STORE_CTX_get0_untrusted(storeContext) else { return nil }
        let count = fiber_x509_stack_count(presented)
        guard count > 0 else { return nil }
        var digest = [UInt8](repeating: 0, count: 32)
        for index in 0..<count {
            var length: UInt32 = 0
            guard let certificate = fiber_x509_stack_at(presented, index),
                  X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == 32 else { return nil }
            material += digest
        }
        SHA256(material, material.count, &digest)
        return VerifiedChainCache.Key(digest: digest)
    }

    /// The earliest `notAfter` of the verified chain, in seconds since the epoch.
    private static func earliestNotAfter(_ chain: OpaquePointer?) -> Int? {
        guard let chain else { return nil }
        var earliest: Int?
        for index in 0..<fiber_x509_stack_count(chain) {
            var parts = tm()
            guard let certificate = fiber_x509_stack_at(chain, index), let notAfter = X509_get0_notAfter(certificate),
                  ASN1_TIME_to_tm(notAfter, &parts) == 1 else { return nil }
            let seconds = timegm(&parts)
            earliest = min(earliest ?? seconds, seconds)
        }
        return earliest
    }
}
