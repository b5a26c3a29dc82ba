import FiberRuntime
import Foundation

/// Certificates for TLS tests, made by `TestPKI` once per process in a
/// temporary folder, with fresh keys: a root and an intermediate CA, a leaf
/// for `localhost`, `127.0.0.1` and `::1` (`chain.pem`, `leaf.key`), the bad
/// ones (`expired.pem`, `not-yet-valid.pem`, `wrong-host.pem`,
/// `self-signed.pem`, `untrusted-root.pem`, `leaf-only.pem` without its
/// intermediate), DER copies for pins (`root.der`, `intermediate.der`,
/// `leaf.der`), a client identity (`client-chain.pem`, `client.key`,
/// `client-encrypted.key`) and, under `hardening/`, the unusual shapes
/// (`TestPKI.hardeningFiles`). Made in process, so tests need neither
/// Python nor this repository's sources.
public struct TestCertificates: Sendable {
    /// The folder holding the files.
    public let folder: String

    /// The certificates in `folder`, which `TestPKI.write(into:)` made.
    public init(folder: String) {
        self.folder = folder
    }

    /// The folder's `file`.
    public func path(_ file: String) -> String { folder + "/" + file }

    /// The bytes of `file`.
    public func bytes(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: path(file)) ?? Data())
    }

    /// A server identity: the chain in `chainFile` with the leaf key.
    public func serverIdentity(_ chainFile: String = "chain.pem", key: String = "leaf.key") -> TLSConfiguration.Identity {
        .init(certificateChain: .file(path(chainFile)), privateKey: .file(path(key)))
    }

    /// A client configuration that trusts the test root (and nothing else).
    public var clientTrustingRoot: TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = .pem(bytes("root.pem"))
        return tls
    }

    /// The passphrase of `client-encrypted.key`.
    public static let passphrase = TestPKI.passphrase

    /// A certificate or key could not be made, or a file not written.
    public struct GenerationError: Error, CustomStringConvertible {
        /// What failed: the file, and why.
        public let description: String
        /// An error that says `description`.
        public init(description: String) { self.description = description }
    }

    /// The process's certificates, made on first use.
    ///
    /// - Throws: `GenerationError` when a certificate, key or file cannot be made.
    public static func shared() async throws -> TestCertificates {
        try await generation.value.get()
    }

    private static let generation = Task<Result<TestCertificates, any Error>, Never> {
        do {
            return .success(try generate())
        } catch {
            return .failure(error)
        }
    }

    /// Writes a `TestPKI` into a fresh temporary folder.
    private static func generate() throws -> TestCertificates {
        let folder = NSTemporaryDirectory() + "fiber-pki-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try TestPKI().write(into: folder)
        return TestCertificates(folder: folder)
    }
}
