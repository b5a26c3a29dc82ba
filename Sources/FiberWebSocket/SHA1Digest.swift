import COpenSSL

/// SHA-1 through OpenSSL's EVP interface, for `Sec-WebSocket-Accept` only
/// (the handshake's use of SHA-1 is a checksum, not a security property).
enum SHA1Digest {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha1(), nil)
            }
        }
        return digest
    }
}
