import FiberRuntime
import FiberTesting
import Testing

/// Against `openssl s_server`, OpenSSL's own test server: `-www` answers
/// `GET /` with a status page (HTTP/1.0, close-delimited, ended by close_notify).
@Suite(.serialized) struct OpenSSLServerInteropTests {
    static func startServer(_ pki: TestCertificates, extra: [String] = []) async throws -> PeerProcess {
        try await PeerProcess.start("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:{{PORT}}", "-www",
                                                          "-cert", pki.path("leaf-only.pem"), "-key", pki.path("leaf.key"),
                                                          "-cert_chain", pki.path("intermediate.pem")] + extra,
                                    ready: "ACCEPT")
    }

    static func client(_ configure: (inout TLSConfiguration) -> Void = { _ in }) async throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.tls = try await TestCertificates.shared().clientTrustingRoot
        configure(&configuration.tls)
        return HTTPClient(eventLoopGroup: .shared, configuration: configuration)
    }

    @Test func statusPageOverTLS13AndTLS12() async throws {
        let pki = try await TestCertificates.shared()
        for version in [TLSConfiguration.Version.tls13, .tls12] {
            let server = try await Self.startServer(pki)
            let client = try await Self.client { $0.maximumVersion = version }
            let response = try await client.get("https://127.0.0.1:\(server.port)/")
            #expect(response.status == 200)
            let page = String(decoding: response.body, as: UTF8.self)
            #expect(page.contains(version == .tls13 ? "TLSv1.3" : "TLSv1.2"), "s_server reports the protocol: \(page.prefix(300))")
            await client.shutdown()
            await server.stop()
        }
    }

    /// TLS 1.3 suites go out in the client's order and s_server follows it:
    /// AES-128-GCM by default, whatever `cipherSuites` asks for otherwise.
    @Test func cipherSuitesInTheClientsOrder() async throws {
        let pki = try await TestCertificates.shared()
        for (suites, expected) in [(nil, "TLS_AES_128_GCM_SHA256"), ("TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"),
                                   ("TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256")] {
            let server = try await Self.startServer(pki)
            let client = try await Self.client { $0.cipherSuites = suites }
            let response = try await client.get("https://127.0.0.1:\(server.port)/")
            let page = String(decoding: response.body, as: UTF8.self)
            #expect(page.contains("Cipher is \(expected)"), "\(suites ?? "default"): \(page.prefix(400))")
            await client.shutdown()
            await server.stop()
        }
    }

    @Test func clientCertificateRequiredButAbsent() async throws {
        let pki = try await TestCertificates.shared()
        let server = try await Self.startServer(pki, extra: ["-Verify", "1", "-CAfile", pki.path("root.pem")])
        let client = try await Self.client()
        await expectTLSError(.clientCertificateRequired) { _ = try await client.get("https://127.0.0.1:\(server.port)/") }
        await client.shutdown()
        await server.stop()
    }

    @Test func clientCertificatePresented() async throws {
        let pki = try await TestCertificates.shared()
        let server = try await Self.startServer(pki, extra: ["-Verify", "1", "-CAfile", pki.path("root.pem")])
        let client = try await Self.client {
            $0.identity = .init(certificateChain: .file(pki.path("client-chain.pem")), privateKey: .file(pki.path("client.key")))
        }
        let response = try await client.get("https://127.0.0.1:\(server.port)/")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("Fiber Test Client"), "s_server shows the client's certificate")
        await client.shutdown()
        await server.stop()
    }

    @Test func tls12OnlyClientAgainstTLS13OnlyServer() async throws {
        let pki = try await TestCertificates.shared()
        let server = try await Self.startServer(pki, extra: ["-tls1_3"])
        let client = try await Self.client { $0.maximumVersion = .tls12 }
        await expectTLSError(.protocolVersion) { _ = try await client.get("https://127.0.0.1:\(server.port)/") }
        await client.shutdown()
        await server.stop()
    }
}
