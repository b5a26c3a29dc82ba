import FiberRuntime
import Foundation

/// Certificates for TLS tests, made by `Scripts/test-pki.py` (Python's
/// `cryptography`, which `Scripts/setup` installs) once per process in a
/// temporary folder: a root and an intermediate CA, a leaf for `localhost`,
/// `127.0.0.1` and `::1` (`chain.pem`, `leaf.key`), the bad ones
/// (`expired.pem`, `not-yet-valid.pem`, `wrong-host.pem`, `self-signed.pem`,
/// `untrusted-root.pem`, `leaf-only.pem` without its intermediate), DER
/// copies for pins (`root.der`, `intermediate.der`, `leaf.der`) and a client
/// identity (`client-chain.pem`, `client.key`, `client-encrypted.key`).
/// Works in a checkout of this repository, where the script is.
public struct TestCertificates: Sendable {
    /// The folder holding the files.
    public let folder: String

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
    public static let passphrase = "fiber-test-passphrase"

    /// The script failed (is Python's `cryptography` installed?).
    public struct GenerationError: Error, CustomStringConvertible {
        /// What failed, with the generator's output.
        public let description: String
        /// An error that says `description`.
        public init(description: String) { self.description = description }
    }

    /// The process's certificates, made on first use.
    ///
    /// - Throws: `GenerationError` when the script fails; file errors.
    public static func shared() async throws -> TestCertificates {
        try await generation.value.get()
    }

    private static let generation = Task<Result<TestCertificates, any Error>, Never> {
        do {
            return .success(try await generate())
        } catch {
            return .failure(error)
        }
    }

    /// Runs `Scripts/test-pki.py` into a fresh temporary folder.
    private static func generate() async throws -> TestCertificates {
        let folder = NSTemporaryDirectory() + "fiber-pki-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scripts/test-pki.py").standardized.path
        let process = try ChildProcess.spawn("/usr/bin/env", arguments: ["python3", script, folder], output: folder + ".log")
        guard await process.waitForSuccess(timeout: .seconds(60)) else {
            let log = (try? String(contentsOfFile: folder + ".log", encoding: .utf8)) ?? ""
            throw GenerationError(description: "test-pki.py failed: \(log)")
        }
        return TestCertificates(folder: folder)
    }
}
