import FiberRuntime
import Foundation

/// A test PKI made in process with fresh keys: the certificates and keys
/// `TestCertificates` serves, written into a folder of the caller's choice.
///
/// In the folder: a root and an intermediate CA (`root.pem`,
/// `intermediate.pem`), a leaf for `localhost`, `127.0.0.1` and `::1` signed
/// by the intermediate (`chain.pem`: the leaf then the intermediate;
/// `leaf.key`), the same leaf alone (`leaf-only.pem`), DER copies for pins
/// (`root.der`, `intermediate.der`, `leaf.der`), the bad chains
/// (`expired.pem`, `not-yet-valid.pem`, `wrong-host.pem` for
/// `other.example`, `self-signed.pem`, `untrusted-root.pem` from a root
/// nobody trusts) and a client identity for mutual TLS (`client-chain.pem`,
/// `client.key`, and `client-encrypted.key`: the same key as encrypted
/// PKCS#8 under `passphrase`). Under `hardening/`, with a root of their own,
/// the unusual shapes (see `hardeningFiles`).
///
/// Every name is `O=Fiber tests, CN=…`. Certificates are valid from a day
/// before `now` for 30 days (the expired ones ended 30 days ago, the
/// not-yet-valid one starts in 30 days), with a critical BasicConstraints,
/// a SubjectKeyIdentifier, for CAs a critical KeyUsage of keyCertSign and
/// cRLSign, for leaves an ExtendedKeyUsage of serverAuth (clientAuth for
/// the client), and subject alternative names as DNS names or IP addresses.
/// Keys are P-256, but the RSA-2048 one of the key-usage leaves; all key
/// files are unencrypted PKCS#8 PEM but `client-encrypted.key`.
public struct TestPKI: Sendable {
    /// The moment the validity periods are counted from.
    public var now: Date

    /// The passphrase of `client-encrypted.key`.
    public static let passphrase = "fiber-test-passphrase"

    /// The files `write(into:)` makes at the top of the folder.
    public static let files = [
        "root.pem", "root.der", "intermediate.pem", "intermediate.der", "leaf.key", "leaf.der", "chain.pem",
        "leaf-only.pem", "expired.pem", "not-yet-valid.pem", "wrong-host.pem", "self-signed.pem",
        "untrusted-root.pem", "client-chain.pem", "client.key", "client-encrypted.key",
    ]

    /// A PKI whose certificates are valid around `now`.
    public init(now: Date = Date()) {
        self.now = now
    }

    /// Makes every key and certificate anew and writes them into `folder`,
    /// which is created if needed; files already there are replaced.
    ///
    /// - Throws: `TestCertificates.GenerationError` saying which file could
    ///   not be made or written, and why.
    public func write(into folder: String) throws(TestCertificates.GenerationError) {
        do {
            try writeMain(into: Output(folder))
            try writeHardening(into: Output(folder + "/hardening"))
        } catch let error as TestCertificates.GenerationError {
            throw error
        } catch {
            throw TestCertificates.GenerationError(description: "cannot make the test PKI in \(folder): \(error)")
        }
    }

    /// The names of the good leaf: a host name, an IPv4 and an IPv6 address.
    static let local = ["localhost", "127.0.0.1", "::1"]

    private func writeMain(into out: Output) throws {
        let root = Authority("Fiber Test Root CA")
        let intermediate = Authority("Fiber Test Intermediate CA")
        let leafKey = Key.p256()
        let rootCertificate = try issue(root.name, key: root.key, by: root, .authority())
        let intermediateCertificate = try issue(intermediate.name, key: intermediate.key, by: root, .authority())
        let leaf = try issue("localhost", key: leafKey, by: intermediate, .server(Self.local))
        try out.write("root.pem", pem(rootCertificate))
        try out.write("root.der", der(rootCertificate))
        try out.write("intermediate.pem", pem(intermediateCertificate))
        try out.write("intermediate.der", der(intermediateCertificate))
        try out.write("leaf.key", leafKey.pem)
        try out.write("leaf.der", der(leaf))
        try out.write("chain.pem", pem(leaf, intermediateCertificate))
        try out.write("leaf-only.pem", pem(leaf))

        let expired = try issue("localhost", key: leafKey, by: intermediate, .server(Self.local, .expired))
        try out.write("expired.pem", pem(expired, intermediateCertificate))
        let early = try issue("localhost", key: leafKey, by: intermediate, .server(Self.local, .notYetValid))
        try out.write("not-yet-valid.pem", pem(early, intermediateCertificate))
        let other = try issue("other.example", key: leafKey, by: intermediate, .server(["other.example"]))
        try out.write("wrong-host.pem", pem(other, intermediateCertificate))
        let selfSigned = try issue("localhost", key: leafKey, by: Authority("localhost", key: leafKey), .server(Self.local))
        try out.write("self-signed.pem", pem(selfSigned))
        let stranger = Authority("Untrusted Root CA")
        let strangerRoot = try issue(stranger.name, key: stranger.key, by: stranger, .authority())
        let strangerLeaf = try issue("localhost", key: leafKey, by: stranger, .server(Self.local))
        try out.write("untrusted-root.pem", pem(strangerLeaf, strangerRoot))

        let clientKey = Key.p256()
        let client = try issue("Fiber Test Client", key: clientKey, by: intermediate, .client)
        try out.write("client-chain.pem", pem(client, intermediateCertificate))
        try out.write("client.key", clientKey.pem)
        let encrypted = try encryptedPKCS8PEM(privateKeyPEM: Array(clientKey.pem.utf8), passphrase: Self.passphrase)
        try out.write("client-encrypted.key", String(decoding: encrypted, as: UTF8.self))
    }
}
