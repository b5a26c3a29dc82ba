import FiberTesting
import Foundation
import Testing
import X509

/// The shared test PKI, read back with swift-certificates: who each
/// certificate names and who signed it, when it is valid, and the
/// extensions the TLS tests rely on.
@Suite struct TestPKIContentTests {
    static let local = ["localhost", "ip127.0.0.1", "ip" + ([UInt8](repeating: 0, count: 15) + [1]).map(String.init).joined(separator: ".")]
    static let day: TimeInterval = 24 * 60 * 60

    @Test func theRootAndIntermediateAreCAs() async throws {
        let pki = try await TestCertificates.shared()
        let root = try #require(try pki.certificates("root.pem").first)
        let intermediate = try #require(try pki.certificates("intermediate.pem").first)
        #expect(root.subject == (try testName("Fiber Test Root CA")))
        #expect(root.isIssued(by: root))
        #expect(intermediate.subject == (try testName("Fiber Test Intermediate CA")))
        #expect(intermediate.isIssued(by: root))
        for ca in [root, intermediate] {
            #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
            #expect(ca.isCritical(BasicConstraints.init) == true)
            #expect(try ca.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
            #expect(ca.isCritical(KeyUsage.init) == true)
            #expect(try ca.extensions.subjectKeyIdentifier == SubjectKeyIdentifier(hash: ca.publicKey))
            #expect(try ca.extensions.extendedKeyUsage == nil)
            #expect(ca.notValidBefore < Date() && Date() < ca.notValidAfter)
            #expect(abs(ca.notValidAfter.timeIntervalSince(ca.notValidBefore) - 31 * Self.day) < 2)
        }
        #expect(try Certificate(derEncoded: pki.bytes("root.der")) == root)
        #expect(try Certificate(derEncoded: pki.bytes("intermediate.der")) == intermediate)
    }

    @Test func theLeafNamesLocalhostAndItsAddresses() async throws {
        let pki = try await TestCertificates.shared()
        let chain = try pki.certificates("chain.pem")
        try #require(chain.count == 2)
        let leaf = chain[0]
        #expect(chain[1] == (try pki.certificates("intermediate.pem").first))
        #expect(leaf.subject == (try testName("localhost")))
        #expect(leaf.isIssued(by: chain[1]))
        #expect(try leaf.alternativeNames == Self.local)
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(leaf.isCritical(BasicConstraints.init) == true)
        #expect(try leaf.extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth]))
        #expect(try leaf.extensions.keyUsage == nil)
        #expect(try leaf.extensions.subjectKeyIdentifier == SubjectKeyIdentifier(hash: leaf.publicKey))
        #expect(leaf.notValidBefore < Date() && Date() < leaf.notValidAfter)
        #expect(try pki.privateKey("leaf.key").publicKey == leaf.publicKey)
        #expect(try pki.privateKey("leaf.key").description == "P256.PrivateKey")
        #expect(try Certificate(derEncoded: pki.bytes("leaf.der")) == leaf)
        #expect(try pki.certificates("leaf-only.pem") == [leaf])
    }

    @Test func theBadLeavesAreBadInOneWayEach() async throws {
        let pki = try await TestCertificates.shared()
        let intermediate = try #require(try pki.certificates("intermediate.pem").first)
        let now = Date()
        let expired = try pki.certificates("expired.pem")
        #expect(expired.count == 2 && expired[0].isIssued(by: intermediate))
        #expect(expired[0].notValidAfter < now && expired[0].notValidAfter > now - 31 * Self.day)
        let early = try pki.certificates("not-yet-valid.pem")
        #expect(early.count == 2 && early[0].isIssued(by: intermediate))
        #expect(early[0].notValidBefore > now && early[0].notValidBefore < now + 31 * Self.day)
        let wrongHost = try pki.certificates("wrong-host.pem")
        #expect(wrongHost.count == 2 && wrongHost[0].isIssued(by: intermediate))
        #expect(try wrongHost[0].alternativeNames == ["other.example"])
        #expect(wrongHost[0].subject == (try testName("other.example")))
        let selfSigned = try pki.certificates("self-signed.pem")
        #expect(selfSigned.count == 1 && selfSigned[0].isIssued(by: selfSigned[0]))
        #expect(try selfSigned[0].extensions.basicConstraints == .notCertificateAuthority)
        let untrusted = try pki.certificates("untrusted-root.pem")
        try #require(untrusted.count == 2)
        #expect(untrusted[1].subject == (try testName("Untrusted Root CA")) && untrusted[1].isIssued(by: untrusted[1]))
        #expect(untrusted[0].isIssued(by: untrusted[1]))
        #expect(try untrusted[0].alternativeNames == Self.local)
        // Every one of them is the good leaf's key, so only the certificate differs.
        let key = try pki.privateKey("leaf.key").publicKey
        #expect([expired[0], early[0], wrongHost[0], selfSigned[0], untrusted[0]].allSatisfy { $0.publicKey == key })
    }

    @Test func theClientIdentityIsForClientsAndItsKeyIsEncrypted() async throws {
        let pki = try await TestCertificates.shared()
        let chain = try pki.certificates("client-chain.pem")
        try #require(chain.count == 2)
        #expect(chain[0].subject == (try testName("Fiber Test Client")))
        #expect(chain[0].isIssued(by: chain[1]))
        #expect(try chain[0].extensions.extendedKeyUsage == ExtendedKeyUsage([.clientAuth]))
        #expect(try chain[0].extensions.subjectAlternativeNames == nil)
        #expect(try pki.privateKey("client.key").publicKey == chain[0].publicKey)
        let encrypted = String(decoding: pki.bytes("client-encrypted.key"), as: UTF8.self)
        #expect(encrypted.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"))
        #expect(TestCertificates.passphrase == "fiber-test-passphrase")
    }
}
