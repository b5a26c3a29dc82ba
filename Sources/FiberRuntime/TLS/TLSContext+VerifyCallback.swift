import COpenSSL

extension TLSContext {
    /// OpenSSL's certificate-verification hook for a client context with full
    /// verification; its argument is the context's `VerifiedChainCache`, or nil.
    ///
    /// 1. The chain: accepted from the cache when it was verified lately for
    ///    the same host, else verified in full by `X509_verify_cert` (a
    ///    success is remembered).
    /// 2. On a refusal, what OpenSSL saw (depth, certificate) is kept on the
    ///    engine for its message; afterwards OpenSSL would tell only the error.
    /// 3. The leaf's key usage, checked on every handshake, cached chain or
    ///    not, because what it must allow depends on the version and cipher.
    static let verifyCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { storeContext, cache in
        guard let storeContext else { return 0 }
        let ssl = X509_STORE_CTX_get_ex_data(storeContext, SSL_get_ex_data_X509_STORE_CTX_idx()).map(OpaquePointer.init)
        let engine = ssl.flatMap(fiber_ssl_get_app_data).map { Unmanaged<TLSEngine>.fromOpaque($0).takeUnretainedValue() }
        guard verifyChain(storeContext, host: engine?.host, cache: cache) == 1 else {
            engine?.verificationFailure = VerificationFailure(storeContext)
            return 0
        }
        if let ssl, let leaf = X509_STORE_CTX_get0_cert(storeContext), let refusal = LeafKeyUsage.refusal(of: leaf, in: ssl) {
            X509_STORE_CTX_set_current_cert(storeContext, leaf)
            X509_STORE_CTX_set_error_depth(storeContext, 0)
            X509_STORE_CTX_set_error(storeContext, refusal.code)
            engine?.verificationFailure = VerificationFailure(storeContext, reason: refusal.reason)
            return 0
        }
        return 1
    }

    /// Step 1 of `verifyCallback`: 1 when the chain is verified (now or lately).
    private static func verifyChain(_ storeContext: OpaquePointer, host: String?, cache: UnsafeMutableRawPointer?) -> Int32 {
        guard let cache, let key = verifiedChainKey(storeContext, host: host) else { return X509_verify_cert(storeContext) }
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
}
