import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The verified-chain cache's key and expiry, read from OpenSSL's verification context.
extension TLSContext {
    /// SHA-256 over the length and bytes of the host the connection must
    /// prove and the SHA-256 of each presented certificate's DER as OpenSSL
    /// encodes what it parsed (the signed part exactly as received), leaf
    /// first; nil if any step fails.
    static func verifiedChainKey(_ storeContext: OpaquePointer, host: String?) -> VerifiedChainCache.Key? {
        let host = Array((host ?? "").utf8)
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
    static func earliestNotAfter(_ chain: OpaquePointer?) -> Int? {
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
