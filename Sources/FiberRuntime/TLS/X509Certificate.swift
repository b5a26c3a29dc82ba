import COpenSSL

/// A certificate as the TLS layer looks at it on every handshake: its DER
/// bytes and its public key's SHA-256 (for pins). Built from OpenSSL's
/// `X509` at once, so it holds no C pointer. (What messages say of a
/// certificate is `CertificateFacts`, read only when one is needed.)
struct X509Certificate: Sendable, Hashable {
    let der: [UInt8]
    let publicKeySHA256: [UInt8]

    /// Reads `certificate` (not consumed; the caller keeps its reference).
    init?(_ certificate: OpaquePointer) {
        guard let der = Self.encode(certificate, with: i2d_X509),
              let key = X509_get_X509_PUBKEY(certificate),
              let spki = Self.encode(key, with: i2d_X509_PUBKEY) else { return nil }
        self.der = der
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256(spki, spki.count, &digest)
        self.publicKeySHA256 = digest
    }

    /// The DER encoding of the first certificate in `bytes`, which may be DER or PEM.
    static func derEncoding(ofDERorPEM bytes: [UInt8]) -> [UInt8]? {
        let certificates = X509Certificate.parsePEM(bytes)
        if let first = certificates.first {
            defer { certificates.forEach { X509_free($0) } }
            return X509Certificate(first)?.der
        }
        var cursor: UnsafePointer<UInt8>? = nil
        return bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            cursor = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            defer { X509_free(certificate) }
            return X509Certificate(certificate)?.der
        }
    }

    /// Every certificate in PEM `bytes`, each owned by the caller (`X509_free`).
    static func parsePEM(_ bytes: [UInt8]) -> [OpaquePointer] {
        bytes.withUnsafeBytes { raw -> [OpaquePointer] in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return [] }
            defer { BIO_free(bio) }
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
            ERR_clear_error()  // the end of the PEM text leaves a "no start line" error
            return certificates
        }
    }

    private static func encode(_ object: OpaquePointer,
                               with encoder: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = encoder(object, nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encoder(object, &cursor)
        }
        return written == length ? bytes : nil
    }
}

/// OpenSSL's thread-local error queue, read and emptied.
enum OpenSSLErrors {
    /// The queued errors as text, oldest first; the queue is left empty.
    static func drain() -> [String] {
        var errors: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            errors.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return errors
    }

    /// The reason code of the oldest queued error (0 if none), leaving the queue as it is.
    static func firstReason() -> Int32 {
        let code = ERR_peek_error()
        return code == 0 ? 0 : Int32(ERR_GET_REASON(code))
    }
}
