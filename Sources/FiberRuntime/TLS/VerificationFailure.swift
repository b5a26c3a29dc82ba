import COpenSSL

/// Where and why a chain was refused, taken in the verification callback
/// while OpenSSL still holds what it built: the error, the depth it was
/// found at and the certificate there. After the handshake OpenSSL tells
/// only the error, which made every message name the leaf.
struct VerificationFailure: Sendable {
    /// OpenSSL's `X509_V_ERR_*`.
    let code: Int32
    /// 0 for the leaf, 1 for the certificate that issued it, and so on.
    let depth: Int
    /// The certificate at `depth`, when OpenSSL names one.
    let certificate: CertificateFacts?
    /// How many certificates the server sent (leaf included).
    let presentedCount: Int
    /// Whether the certificate at `depth` is the last one the server sent.
    let isLastPresented: Bool
    /// Whether the certificate at `depth` came from the trust roots rather than from the server.
    let isTrusted: Bool
    /// For a chain OpenSSL accepted and Fiber refused: why, as the end of a sentence about the certificate.
    let reason: String?

    /// What `storeContext` says about its failed verification; `reason` for a refusal of Fiber's own.
    init(_ storeContext: OpaquePointer, reason: String? = nil) {
        code = X509_STORE_CTX_get_error(storeContext)
        depth = Int(X509_STORE_CTX_get_error_depth(storeContext))
        let current = X509_STORE_CTX_get_current_cert(storeContext)
        certificate = current.map(CertificateFacts.init)
        self.reason = reason
        // The untrusted stack of a TLS handshake is the whole presented chain, leaf first.
        let presented = X509_STORE_CTX_get0_untrusted(storeContext)
        presentedCount = presented.map { Int(fiber_x509_stack_count($0)) } ?? 0
        if let presented, presentedCount > 0, let last = fiber_x509_stack_at(presented, Int32(presentedCount - 1)),
           let certificate {
            isLastPresented = CertificateFacts.fingerprint(last) == certificate.fingerprint
        } else {
            isLastPresented = false
        }
        // OpenSSL puts the server's certificates first in the chain it builds, then those it found in the trust roots.
        let fromServer = Int(X509_STORE_CTX_get_num_untrusted(storeContext))
        isTrusted = X509_STORE_CTX_get0_chain(storeContext) != nil && depth >= fromServer
    }
}
