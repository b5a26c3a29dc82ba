import FiberRuntime
import FiberTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Certificate pinning: a pinned host is trusted only if a certificate of
/// the chain it presents matches one of its pins; a mismatch sends nothing.
@Suite(.serialized) struct PinningTests {
    /// base64 SHA-256 of a certificate's public key, computed by the `openssl` command line.
    static func spkiPin(of pemFile: String) async throws -> String {
        let output = pemFile + ".spki"
        let script = "openssl x509 -in '\(pemFile)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64 > '\(output)'"
        let process = try ChildProcess.spawn("/bin/sh", arguments: ["-c", script], output: output + ".log")
        #expect(await process.waitForSuccess(timeout: .seconds(20)))
        return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func publicKeyPinOfTheLeafMatches() async throws {
        let pki = try await TestCertificates.shared()
        let pin = try CertificatePin.publicKeySHA256(base64: "sha256/" + (try await Self.spkiPin(of: pki.path("leaf-only.pem"))))
        try await withTLSServer(client: { configuration, _ in
            configuration.tls.pins = ["127.0.0.1": [try! CertificatePin.publicKeySHA256(base64: String(repeating: "A", count: 43) + "="), pin]]
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func wholeCertificatePinsFromDERFilesMatchTheIntermediate() async throws {
        try await withTLSServer(client: { configuration, pki in
            // Two pins, as for a rotation: the intermediate matches, the root is not in the presented chain.
            configuration.tls.pins = ["127.0.0.1": [try! CertificatePin.certificate(file: pki.path("root.der")),
                                                    try! CertificatePin.certificate(file: pki.path("intermediate.der"))]]
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func mismatchIsRefusedAndNothingIsSent() async throws {
        try await withTLSServer(client: { configuration, pki in
            configuration.tls.pins = ["127.0.0.1": [try! CertificatePin.certificate(file: pki.path("root.der")),
                                                    try! CertificatePin.publicKeySHA256(base64: String(repeating: "B", count: 43) + "=")]]
        }) { client, server, _ in
            await expectTLSError(.pinMismatch) { _ = try await client.get(server.url("/hello")) }
            do {
                _ = try await client.get(server.url("/hello"))
            } catch let error as HTTPClientError {
                #expect(error.tls?.host == "127.0.0.1")
                #expect(error.tls?.detail.contains("pins for 127.0.0.1") == true, "\(error)")
            }
            #expect(server.requestCount == 0)
        }
    }

    @Test func pinsApplyPerHostOnly() async throws {
        try await withTLSServer(client: { configuration, pki in
            configuration.tls.pins = ["api.example.com": [try! CertificatePin.certificate(file: pki.path("root.der"))]]
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func pinsHoldEvenWithoutVerification() async throws {
        try await withTLSServer(chain: "self-signed.pem", client: { configuration, pki in
            configuration.tls.verification = .insecureNoVerification
            configuration.tls.pins = ["127.0.0.1": [try! CertificatePin.certificate(file: pki.path("root.der"))]]
        }) { client, server, _ in
            await expectTLSError(.pinMismatch) { _ = try await client.get(server.url("/hello")) }
        }
    }

    @Test func badPinsAreConfigurationErrors() throws {
        #expect(throws: TLSError.self) { try CertificatePin.publicKeySHA256(base64: "not base64!") }
        #expect(throws: TLSError.self) { try CertificatePin.publicKeySHA256(base64: "AAAA") }
        #expect(throws: TLSError.self) { try CertificatePin.certificate(bytes: Array("garbage".utf8)) }
        #expect(throws: TLSError.self) { try CertificatePin.certificate(file: "/nonexistent.cer") }
    }

    @Test func pemAndDERPinsOfOneCertificateAreEqual() async throws {
        let pki = try await TestCertificates.shared()
        let fromDER = try CertificatePin.certificate(file: pki.path("intermediate.der"))
        let fromPEM = try CertificatePin.certificate(file: pki.path("intermediate.pem"))
        #expect(fromDER == fromPEM)
    }
}
