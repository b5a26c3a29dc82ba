import FiberRuntime
import FiberTesting
import Foundation

/// Certificates for the hardening tests, in a `hardening/` folder of the
/// shared test PKI (so `withTLSServer(chain: "hardening/…")` finds them): a
/// root of their own ("Hardening Root CA", `hardening/root.pem`) and an
/// intermediate, and leaves of the shapes a client must refuse or accept:
/// names only in the CN, wildcards, unusual key usages (RSA, `hardening/rsa.key`),
/// broken chains. Every leaf but the RSA ones uses `hardening/leaf.key`.
/// `TestPKI` makes them with the rest of the shared PKI (`TestPKI.hardeningFiles`).
enum HardeningCertificates {
    /// The shared PKI, whose `hardening/` folder holds them.
    static func shared() async throws -> TestCertificates {
        try await TestCertificates.shared()
    }

    /// A client configuration trusting only the hardening root.
    static func clientTrustingRoot(_ pki: TestCertificates) -> TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = .pem(pki.bytes("hardening/root.pem"))
        return tls
    }
}
