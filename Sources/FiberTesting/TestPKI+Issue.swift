import Crypto
import Foundation
import X509
import _CryptoExtras

extension TestPKI {
    /// A private key, with its unencrypted PKCS#8 PEM for the key files.
    struct Key {
        let privateKey: Certificate.PrivateKey
        let pem: String

        /// A new P-256 key.
        static func p256() -> Key {
            let key = P256.Signing.PrivateKey()
            return Key(privateKey: Certificate.PrivateKey(key), pem: key.pemRepresentation)
        }

        /// A new RSA-2048 key.
        static func rsa2048() throws -> Key {
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return Key(privateKey: Certificate.PrivateKey(key), pem: key.pkcs8PEMRepresentation)
        }
    }

    /// Who signs: the common name it signs as, and its key (P-256, so every
    /// signature is ECDSA with SHA-256).
    struct Authority {
        let name: String
        let key: Key

        init(_ name: String, key: Key = .p256()) {
            self.name = name
            self.key = key
        }
    }

    /// A certificate for `subject`'s `key`, signed by `issuer`, of `shape`.
    func issue(_ subject: String, key: Key, by issuer: Authority, _ shape: Shape) throws -> Certificate {
        let validity = shape.validity.period(around: now)
        let publicKey = key.privateKey.publicKey
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: Self.name(issuer.name),
            subject: Self.name(subject),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Self.extensions(shape, publicKey: publicKey),
            issuerPrivateKey: issuer.key.privateKey
        )
    }

    /// `O=Fiber tests, CN=common`.
    static func name(_ common: String) throws -> DistinguishedName {
        try DistinguishedName {
            OrganizationName("Fiber tests")
            CommonName(common)
        }
    }

    /// BasicConstraints (critical) and SubjectKeyIdentifier; for a CA a
    /// critical KeyUsage of keyCertSign and cRLSign, for a leaf its
    /// ExtendedKeyUsage and the shape's critical KeyUsage if any; the names.
    static func extensions(_ shape: Shape, publicKey: Certificate.PublicKey) throws -> Certificate.Extensions {
        let constraints: BasicConstraints = shape.isAuthority
            ? .isCertificateAuthority(maxPathLength: shape.pathLength) : .notCertificateAuthority
        let names = try shape.names.map(generalName)
        return try Certificate.Extensions {
            Critical(constraints)
            SubjectKeyIdentifier(hash: publicKey)
            if shape.isAuthority {
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            } else {
                try ExtendedKeyUsage([shape.purpose])
                if let keyUsage = shape.keyUsage {
                    Critical(keyUsage)
                }
            }
            if !names.isEmpty {
                SubjectAlternativeNames(names)
            }
        }
    }

    /// An IP address when `text` reads as one (IPv4 or IPv6), else a DNS name.
    static func generalName(_ text: String) throws -> GeneralName {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return .ipAddress(.init(contentBytes: withUnsafeBytes(of: &v4) { ArraySlice($0) }))
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return .ipAddress(.init(contentBytes: withUnsafeBytes(of: &v6) { ArraySlice($0) }))
        }
        return .dnsName(text)
    }
}
