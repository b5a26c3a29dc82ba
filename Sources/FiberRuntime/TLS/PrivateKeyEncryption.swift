import COpenSSL

/// `privateKeyPEM`, an unencrypted PEM private key (PKCS#8 or the
/// algorithm's own format), as an encrypted PKCS#8 PEM
/// (`ENCRYPTED PRIVATE KEY`: AES-256-CBC under a key that PBKDF2 derives
/// from `passphrase`), which `TLSConfiguration.Identity` opens with the same
/// passphrase. FiberTesting makes its encrypted test key with it, since
/// swift-certificates writes no encrypted keys.
///
/// - Throws: `TLSError` `.invalidConfiguration` when the passphrase is empty,
///   when `privateKeyPEM` holds no readable unencrypted key, or when OpenSSL
///   cannot write the result.
package func encryptedPKCS8PEM(privateKeyPEM: [UInt8], passphrase: String) throws(TLSError) -> [UInt8] {
    guard !passphrase.isEmpty else {
        throw TLSError(.invalidConfiguration, "a private key needs a non-empty passphrase to be encrypted")
    }
    let key: OpaquePointer? = privateKeyPEM.withUnsafeBytes { raw in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
        defer { BIO_free(bio) }
        // A key that is encrypted already asks for a passphrase: refusing
        // keeps OpenSSL from prompting on the terminal.
        return PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
    }
    guard let key else {
        throw TLSError(.invalidConfiguration, "the private key to encrypt is unreadable, or encrypted already",
                       openSSLErrors: OpenSSLErrors.drain())
    }
    defer { EVP_PKEY_free(key) }
    guard let bio = BIO_new(BIO_s_mem()) else {
        throw TLSError(.invalidConfiguration, "OpenSSL could not make a memory buffer", openSSLErrors: OpenSSLErrors.drain())
    }
    defer { BIO_free(bio) }
    let written = passphrase.withCString { text in
        PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), text, Int32(clamping: passphrase.utf8.count), nil, nil)
    }
    let length = Int(BIO_ctrl_pending(bio))
    guard written == 1, length > 0 else {
        throw TLSError(.invalidConfiguration, "OpenSSL could not write the encrypted private key", openSSLErrors: OpenSSLErrors.drain())
    }
    var pem = [UInt8](repeating: 0, count: length)
    let read = pem.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(length)) }
    guard read == Int32(length) else {
        throw TLSError(.invalidConfiguration, "OpenSSL could not hand back the encrypted private key", openSSLErrors: OpenSSLErrors.drain())
    }
    return pem
}

/// A passphrase callback that gives none.
private let refusePassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in -1 }
