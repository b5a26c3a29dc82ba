import FiberTesting
import Foundation
import Testing
import X509

/// The test PKI's files read back with swift-certificates.
extension TestCertificates {
    /// The certificates of the PEM file `file`, in order.
    func certificates(_ file: String) throws -> [Certificate] {
        let text = String(decoding: bytes(file), as: UTF8.self)
        let end = "-----END CERTIFICATE-----"
        return try text.components(separatedBy: end).dropLast().map { try Certificate(pemEncoded: $0 + end) }
    }

    /// The private key in the PEM file `file`.
    func privateKey(_ file: String) throws -> Certificate.PrivateKey {
        try Certificate.PrivateKey(pemEncoded: String(decoding: bytes(file), as: UTF8.self))
    }
}

/// `O=Fiber tests, CN=common`, the shape of every name in the test PKI.
func testName(_ common: String) throws -> DistinguishedName {
    try DistinguishedName {
        OrganizationName("Fiber tests")
        CommonName(common)
    }
}

extension Certificate {
    /// Whether the extension that `parse` reads is present and critical (nil when absent).
    func isCritical<Value>(_ parse: (Certificate.Extension) throws -> Value) -> Bool? {
        extensions.first { (try? parse($0)) != nil }?.critical
    }

    /// The subject alternative names as text: DNS names, and IP addresses as their byte count and bytes.
    var alternativeNames: [String] {
        get throws {
            try (extensions.subjectAlternativeNames ?? SubjectAlternativeNames([])).map { name -> String in
                switch name {
                case .dnsName(let dns): dns
                case .ipAddress(let octets): "ip" + octets.bytes.map(String.init).joined(separator: ".")
                default: "\(name)"
                }
            }
        }
    }

    /// Whether `issuer` signed this certificate: names and signature.
    func isIssued(by issuer: Certificate) -> Bool {
        self.issuer == issuer.subject && issuer.publicKey.isValidSignature(signature, for: self)
    }
}
