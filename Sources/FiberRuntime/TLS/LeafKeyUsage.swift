import COpenSSL

/// What the server's leaf must be allowed to do in the handshake being made,
/// by its key usage extension. OpenSSL verifies the chain, not this.
///
/// - TLS 1.3 (RFC 8446 §4.4.2.2), and TLS 1.2 with (EC)DHE: the leaf's key
///   signs the handshake, so `digitalSignature`.
/// - TLS 1.2 with RSA key exchange: the client encrypts the premaster
///   secret to the leaf's key, so `keyEncipherment`.
///
/// A leaf without the extension may do both.
enum LeafKeyUsage {
    /// A refusal: OpenSSL's code for it and the end of a sentence about the leaf.
    struct Refusal {
        let code: Int32
        let reason: String
    }

    /// Nil when `leaf` may do what the handshake of `ssl`, at its Certificate message, asks of it.
    static func refusal(of leaf: OpaquePointer, in ssl: OpaquePointer) -> Refusal? {
        // All bits set when the certificate has no key usage extension.
        let usage = X509_get_key_usage(leaf)
        let isTLS13 = SSL_version(ssl) >= TLS1_3_VERSION
        let exchange = SSL_get_pending_cipher(ssl).map { SSL_CIPHER_get_kx_nid($0) } ?? NID_undef
        if !isTLS13 && exchange == NID_kx_rsa {
            guard usage & UInt32(X509v3_KU_KEY_ENCIPHERMENT) == 0 else { return nil }
            return Refusal(code: X509_V_ERR_INVALID_PURPOSE,
                           reason: "may not encipher keys (its key usage lacks keyEncipherment), which RSA key exchange requires")
        }
        guard usage & UInt32(X509v3_KU_DIGITAL_SIGNATURE) == 0 else { return nil }
        let handshake = isTLS13 ? "TLS 1.3" : exchange == NID_kx_dhe ? "TLS 1.2 with DHE" : "TLS 1.2 with ECDHE"
        return Refusal(code: X509_V_ERR_KEYUSAGE_NO_DIGITAL_SIGNATURE,
                       reason: "may not sign (its key usage lacks digitalSignature), which \(handshake) requires")
    }
}
