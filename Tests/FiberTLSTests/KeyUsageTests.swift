import COpenSSL
import FiberRuntime
import FiberTesting
import Testing

/// The leaf's key usage must allow what the handshake makes it do, against
/// `openssl s_server` with an RSA leaf: sign (digitalSignature) in TLS 1.3
/// (RFC 8446 §4.4.2.2) and in TLS 1.2 with ECDHE, encipher keys
/// (keyEncipherment) in TLS 1.2 with RSA key exchange. A leaf without a
/// key usage extension may do both.
@Suite(.serialized) struct KeyUsageTests {
    /// TLS 1.2 only, with ECDHE and RSA signatures.
    static let ecdhe = ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]
    /// TLS 1.2 only, with RSA key exchange (the client's default list still offers it).
    static let rsaKeyExchange = ["-tls1_2", "-cipher", "AES128-GCM-SHA256"]

    /// The status of `GET /` on an `openssl s_server` presenting `chain` with the RSA key and `options`.
    static func status(presenting chain: String, _ options: [String]) async throws -> Result<Int, any Error> {
        let pki = try await HardeningCertificates.shared()
        let server = try await PeerProcess.start("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:{{PORT}}", "-www",
                                                                       "-cert", pki.path("hardening/\(chain)"),
                                                                       "-key", pki.path("hardening/rsa.key"),
                                                                       "-cert_chain", pki.path("hardening/intermediate.pem")] + options,
                                                 ready: "ACCEPT")
        var configuration = HTTPClient.Configuration()
        configuration.tls = HardeningCertificates.clientTrustingRoot(pki)
        let client = HTTPClient(eventLoopGroup: .shared, configuration: configuration)
        let result: Result<Int, any Error>
        do {
            result = .success(try await client.get("https://localhost:\(server.port)/").status)
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        await server.stop()
        return result
    }

    @Test func tls13RefusesALeafThatMayNotSign() async throws {
        let result = try await Self.status(presenting: "ku-encipherment.pem", ["-tls1_3"])
        await expectTLSError(.certificateInvalid) { _ = try result.get() }
        if case .failure(let error as HTTPClientError) = result {
            #expect(error.tls?.verifyCode == X509_V_ERR_KEYUSAGE_NO_DIGITAL_SIGNATURE)
            let detail = error.tls?.detail ?? ""
            #expect(detail.contains("digitalSignature") && detail.contains("TLS 1.3") && detail.contains("CN=localhost"), "\(detail)")
        }
    }

    @Test func tls12WithECDHERefusesALeafThatMayNotSign() async throws {
        let result = try await Self.status(presenting: "ku-encipherment.pem", Self.ecdhe)
        await expectTLSError(.certificateInvalid) { _ = try result.get() }
    }

    @Test func tls12WithRSAKeyExchangeNeedsKeyEncipherment() async throws {
        #expect(try await Self.status(presenting: "ku-encipherment.pem", Self.rsaKeyExchange).get() == 200)
        let result = try await Self.status(presenting: "ku-signature.pem", Self.rsaKeyExchange)
        await expectTLSError(.certificateInvalid) { _ = try result.get() }
        if case .failure(let error as HTTPClientError) = result {
            #expect(error.tls?.detail.contains("keyEncipherment") == true, "\(error)")
        }
    }

    /// The rule depends on the handshake, so it holds for a chain the client remembers as verified.
    @Test func aChainAcceptedForRSAKeyExchangeIsStillRefusedForTLS13() async throws {
        #expect(try await Self.status(presenting: "ku-encipherment.pem", Self.rsaKeyExchange).get() == 200)
        let result = try await Self.status(presenting: "ku-encipherment.pem", ["-tls1_3"])
        await expectTLSError(.certificateInvalid) { _ = try result.get() }
    }

    @Test func aLeafThatMaySignOrHasNoKeyUsageIsAccepted() async throws {
        #expect(try await Self.status(presenting: "ku-signature.pem", ["-tls1_3"]).get() == 200)
        #expect(try await Self.status(presenting: "ku-signature.pem", Self.ecdhe).get() == 200)
        #expect(try await Self.status(presenting: "ku-none.pem", ["-tls1_3"]).get() == 200)
        #expect(try await Self.status(presenting: "ku-none.pem", Self.rsaKeyExchange).get() == 200)
    }
}
