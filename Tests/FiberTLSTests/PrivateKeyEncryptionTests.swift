import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `encryptedPKCS8PEM`: an unencrypted key made into an encrypted PKCS#8 PEM
/// that the runtime's TLS identity opens with the passphrase, and nothing
/// else; bad input is a configuration error, never a prompt.
@Suite(.serialized) struct PrivateKeyEncryptionTests {
    static let header = "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"

    @Test func anEncryptedLeafKeyServesWithItsPassphrase() async throws {
        let pki = try await TestCertificates.shared()
        let encrypted = try encryptedPKCS8PEM(privateKeyPEM: pki.bytes("leaf.key"), passphrase: "open sesame")
        #expect(String(decoding: encrypted, as: UTF8.self).hasPrefix(Self.header))
        #expect(encrypted != pki.bytes("leaf.key"))
        try await withTLSServer(server: { tls, pki in
            tls.identity = .init(certificateChain: .file(pki.path("chain.pem")), privateKey: .pem(encrypted),
                                 passphrase: "open sesame")
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func aWrongPassphraseDoesNotOpenIt() async throws {
        let pki = try await TestCertificates.shared()
        let encrypted = try encryptedPKCS8PEM(privateKeyPEM: pki.bytes("client.key"), passphrase: "right")
        try await withTLSServer(server: MutualTLSTests.requireClientCertificate, client: { configuration, pki in
            configuration.tls.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                               privateKey: .pem(encrypted), passphrase: "wrong")
        }) { client, server, _ in
            await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
            #expect(server.requestCount == 0)
        }
    }

    /// The RSA key of the hardening leaves encrypts as well as the P-256 ones.
    @Test func anRSAKeyEncryptsToo() async throws {
        let pki = try await TestCertificates.shared()
        let encrypted = try encryptedPKCS8PEM(privateKeyPEM: pki.bytes("hardening/rsa.key"), passphrase: "rsa")
        #expect(String(decoding: encrypted, as: UTF8.self).hasPrefix(Self.header))
    }

    /// Garbage, a certificate, a key encrypted already (which would otherwise
    /// ask the terminal for its passphrase) and an empty passphrase each fail
    /// with `.invalidConfiguration` and a sentence.
    @Test func badInputIsAConfigurationError() async throws {
        let pki = try await TestCertificates.shared()
        let cases: [(String, [UInt8], String)] = [
            ("garbage", Array("not a key".utf8), "p"),
            ("empty", [], "p"),
            ("a certificate", pki.bytes("root.pem"), "p"),
            ("an encrypted key", pki.bytes("client-encrypted.key"), "p"),
            ("an empty passphrase", pki.bytes("client.key"), ""),
        ]
        for (name, bytes, passphrase) in cases {
            let error = #expect(throws: TLSError.self, "\(name)") {
                try encryptedPKCS8PEM(privateKeyPEM: bytes, passphrase: passphrase)
            }
            #expect(error?.kind == .invalidConfiguration, "\(name)")
            #expect(error?.detail.isEmpty == false, "\(name)")
        }
    }
}
