import Foundation

/// One pin: a certificate the peer's chain must contain, whole or by its public key.
///
/// A pinned host is trusted only if some certificate of the chain it presents
/// matches one of its pins (the leaf, an intermediate, or the root it sent),
/// *in addition to* the ordinary verification. Give each host at least two
/// pins (the current key and the next one) so a rotation does not lock
/// clients out.
public enum CertificatePin: Sendable, Hashable, CustomStringConvertible {
    /// A whole certificate, byte for byte, in DER (a `.cer` or `.der` file).
    case certificate(der: [UInt8])
    /// The SHA-256 digest of a certificate's SubjectPublicKeyInfo, the form
    /// most servers document (`openssl x509 -pubkey | openssl pkey -pubin
    /// -outform der | openssl dgst -sha256 -binary | base64`). Survives a
    /// renewal that keeps the key.
    case publicKeySHA256([UInt8])

    /// A public-key pin from its base64 text (with or without a `sha256/` prefix).
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` if it is not base64 of 32 bytes.
    public static func publicKeySHA256(base64: String) throws -> CertificatePin {
        var text = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("sha256/") { text.removeFirst("sha256/".count) }
        guard let digest = Data(base64Encoded: text), digest.count == 32 else {
            throw TLSError(.invalidConfiguration, "a public-key pin must be base64 of a 32-byte SHA-256 digest, not \"\(base64)\"")
        }
        return .publicKeySHA256(Array(digest))
    }

    /// A whole-certificate pin loaded from a `.cer`/`.der` file (DER) or a PEM file.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` if the file cannot be read or holds no certificate.
    public static func certificate(file path: String) throws -> CertificatePin {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSError(.invalidConfiguration, "cannot read the pinned certificate \(path)")
        }
        return try certificate(bytes: Array(data), origin: path)
    }

    /// A whole-certificate pin from DER or PEM bytes.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` if the bytes hold no certificate.
    public static func certificate(bytes: [UInt8]) throws -> CertificatePin {
        try certificate(bytes: bytes, origin: "the given bytes")
    }

    private static func certificate(bytes: [UInt8], origin: String) throws -> CertificatePin {
        guard let der = X509Certificate.derEncoding(ofDERorPEM: bytes) else {
            throw TLSError(.invalidConfiguration, "no certificate in \(origin)")
        }
        return .certificate(der: der)
    }

    /// Whether `certificate` matches this pin.
    func matches(_ certificate: X509Certificate) -> Bool {
        switch self {
        case .certificate(let der): certificate.der == der
        case .publicKeySHA256(let digest): certificate.publicKeySHA256 == digest
        }
    }

    public var description: String {
        switch self {
        case .certificate(let der): "certificate(\(der.count) bytes DER)"
        case .publicKeySHA256(let digest): "sha256/\(Data(digest).base64EncodedString())"
        }
    }
}
