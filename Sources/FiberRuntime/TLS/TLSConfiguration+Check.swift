import Foundation

extension TLSConfiguration {
    /// Builds, and drops, the OpenSSL context this configuration makes, reading its
    /// files at once on the calling thread: for start-up code, never on a loop. What
    /// the first connection would refuse (an unreadable file, a PEM file without a
    /// certificate, a key that is not the certificate's or a wrong passphrase, a
    /// cipher setting OpenSSL cannot use, a pin's key that is no host) is refused here.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration`, as the first connection would.
    package func checkNow() throws {
        var loaded = self
        if verification == .full || requireClientCertificate, case .file(let path) = trustRoots {
            loaded.trustRoots = .pem(try Self.readNow(path, what: "CA certificates"))
        }
        if var identity {
            if case .file(let path) = identity.certificateChain {
                identity.certificateChain = .pem(try Self.readNow(path, what: "certificate chain"))
            }
            if case .file(let path) = identity.privateKey {
                identity.privateKey = .pem(try Self.readNow(path, what: "private key"))
            }
            loaded.identity = identity
        }
        _ = try TLSContext(loaded)
    }

    private static func readNow(_ path: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSError(.invalidConfiguration, "cannot read the \(what) file \(path)")
        }
        return Array(data)
    }
}
