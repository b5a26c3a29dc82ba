import FiberTesting
import Foundation
import Testing
import X509

/// The `hardening/` certificates of the shared test PKI, read back with
/// swift-certificates: each has the one unusual trait it is named for.
@Suite struct TestPKIHardeningTests {
    static func leaf(_ pki: TestCertificates, _ file: String) throws -> Certificate {
        try #require(try pki.certificates("hardening/" + file).first)
    }

    @Test func namesAreWhereEachFileSays() async throws {
        let pki = try await TestCertificates.shared()
        let intermediate = try #require(try pki.certificates("hardening/intermediate.pem").first)
        let root = try #require(try pki.certificates("hardening/root.pem").first)
        #expect(root.subject == (try testName("Hardening Root CA")) && intermediate.isIssued(by: root))
        let expected: [(String, [String])] = [
            ("cn-only.pem", []), ("ip-san-only.pem", ["ip127.0.0.1"]), ("dns-san.pem", ["localhost"]),
            ("wildcard.pem", ["*.fiber.test"]), ("partial-wildcard.pem", ["w*.fiber.test"]),
        ]
        for (file, names) in expected {
            let leaf = try Self.leaf(pki, file)
            #expect(leaf.subject == (try testName("localhost")), "\(file)")
            #expect(leaf.isIssued(by: intermediate), "\(file)")
            #expect(try leaf.alternativeNames == names, "\(file)")
        }
        #expect(try Self.leaf(pki, "cn-only.pem").extensions.subjectAlternativeNames == nil)
    }

    @Test func keyUsagesAreOnAnRSALeaf() async throws {
        let pki = try await TestCertificates.shared()
        let rsa = try pki.privateKey("hardening/rsa.key")
        #expect(rsa.description == "RSA2048.PrivateKey")
        let expected: [(String, KeyUsage?)] = [
            ("ku-encipherment.pem", KeyUsage(keyEncipherment: true)),
            ("ku-signature.pem", KeyUsage(digitalSignature: true)),
            ("ku-none.pem", nil),
        ]
        for (file, usage) in expected {
            let leaf = try Self.leaf(pki, file)
            #expect(leaf.publicKey == rsa.publicKey, "\(file)")
            #expect(try leaf.extensions.keyUsage == usage, "\(file)")
            #expect(leaf.isCritical(KeyUsage.init) == (usage == nil ? nil : true), "\(file)")
            #expect(try leaf.extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth]), "\(file)")
        }
    }

    @Test func brokenChainsAreBrokenWhereTheirNameSays() async throws {
        let pki = try await TestCertificates.shared()
        let root = try #require(try pki.certificates("hardening/root.pem").first)
        let now = Date()
        #expect(try Self.leaf(pki, "leaf-expired.pem").notValidAfter < now)
        #expect(try pki.certificates("hardening/leaf-only.pem").count == 1)

        let expiredCA = try pki.certificates("hardening/expired-intermediate.pem")
        try #require(expiredCA.count == 2)
        #expect(expiredCA[1].notValidAfter < now && expiredCA[1].isIssued(by: root))
        #expect(expiredCA[0].notValidAfter > now && expiredCA[0].isIssued(by: expiredCA[1]))

        let notCA = try pki.certificates("hardening/not-ca-intermediate.pem")
        try #require(notCA.count == 2)
        #expect(try notCA[1].extensions.basicConstraints == .notCertificateAuthority)
        #expect(notCA[1].isIssued(by: root) && notCA[0].isIssued(by: notCA[1]))

        let pathLength = try pki.certificates("hardening/path-length.pem")
        try #require(pathLength.count == 3)
        #expect(try pathLength[2].extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try pathLength[1].extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(pathLength[2].isIssued(by: root) && pathLength[1].isIssued(by: pathLength[2]))
        #expect(pathLength[0].isIssued(by: pathLength[1]))

        let privateRoot = try pki.certificates("hardening/private-root.pem")
        try #require(privateRoot.count == 2)
        #expect(privateRoot[1].issuer == (try testName("Hardening Private Root CA")))
        #expect(privateRoot[0].isIssued(by: privateRoot[1]))
        // Every leaf of a broken chain is the hardening leaf key's.
        let key = try pki.privateKey("hardening/leaf.key").publicKey
        #expect([expiredCA[0], notCA[0], pathLength[0], privateRoot[0]].allSatisfy { $0.publicKey == key })
    }
}
