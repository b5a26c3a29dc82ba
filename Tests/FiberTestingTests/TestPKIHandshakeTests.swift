import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Real handshakes with certificates `TestPKI` wrote into a folder of the
/// test's own: the runtime's client against FiberTesting's HTTPS server.
/// (The TLS suites run every bad certificate of the shared PKI the same way.)
@Suite(.serialized) struct TestPKIHandshakeTests {
    /// A PKI of this suite's own, written once.
    static let pki: Result<TestCertificates, TestCertificates.GenerationError> = {
        let folder = TestPKIWriteTests.temporaryFolder("handshake")
        return Result { () throws(TestCertificates.GenerationError) in
            try TestPKI().write(into: folder)
            return TestCertificates(folder: folder)
        }
    }()

    /// Runs `body` with a client and an HTTPS server serving `chain` with `leaf.key`, on one loop.
    static func withServer(
        chain: String = "chain.pem",
        server configureServer: (inout TLSConfiguration, TestCertificates) -> Void = { _, _ in },
        client configureClient: (inout TLSConfiguration, TestCertificates) -> Void = { _, _ in },
        _ body: (HTTPClient, TestHTTPServer) async throws -> Void
    ) async throws {
        let pki = try Self.pki.get()
        let group = EventLoopGroup(loopCount: 1, name: "pki-test")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: pki.serverIdentity(chain))
        configureServer(&serverConfiguration.tls!, pki)
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.tls = pki.clientTrustingRoot
        configureClient(&clientConfiguration.tls, pki)
        let client = HTTPClient(eventLoopGroup: group, configuration: clientConfiguration)
        let server: TestHTTPServer
        do {
            server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
        } catch {
            await client.shutdown()
            try? await group.shutdown()
            throw error
        }
        server.route("/hello", respond: .ok("hello"))
        do {
            try await body(client, server)
        } catch {
            await client.shutdown()
            await server.shutdown()
            try? await group.shutdown()
            throw error
        }
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    /// The kind of TLS error `body` failed with, or nil if it did not fail with one.
    static func tlsErrorKind(_ body: () async throws -> Void) async -> TLSError.Kind? {
        do {
            try await body()
            return nil
        } catch let error as HTTPClientError {
            return error.tls?.kind
        } catch {
            return (error as? TLSError)?.kind
        }
    }

    @Test func theChainVerifiesAgainstItsRootByNameAndAddress() async throws {
        try await Self.withServer { client, server in
            for url in [server.url("/hello"), "https://localhost:\(server.port)/hello"] {
                let response = try await client.execute(HTTPClientRequest(url: url))
                #expect(response.status == 200, "\(url)")
            }
        }
    }

    /// Each PKI has keys of its own: the shared PKI's root has the same name
    /// but another key, so the intermediate's signature does not verify.
    @Test func anotherPKIsRootDoesNotVerifyIt() async throws {
        let shared = try await TestCertificates.shared()
        try await Self.withServer(client: { tls, _ in tls.trustRoots = .pem(shared.bytes("root.pem")) }) { client, server in
            let kind = await Self.tlsErrorKind { _ = try await client.execute(HTTPClientRequest(url: server.url("/hello"))) }
            #expect(kind == .certificateInvalid)
            #expect(server.requestCount == 0)
        }
    }

    @Test func theEncryptedClientKeyOpensWithThePassphraseOnly() async throws {
        for passphrase in [TestCertificates.passphrase, "not-the-passphrase"] {
            try await Self.withServer(server: { tls, pki in
                tls.requireClientCertificate = true
                tls.trustRoots = .pem(pki.bytes("root.pem"))
            }, client: { tls, pki in
                tls.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                     privateKey: .file(pki.path("client-encrypted.key")), passphrase: passphrase)
            }) { client, server in
                let kind = await Self.tlsErrorKind { _ = try await client.execute(HTTPClientRequest(url: server.url("/hello"))) }
                if passphrase == TestCertificates.passphrase {
                    #expect(kind == nil)
                    #expect(server.tlsHandshakes.first?.peerCertificates.isEmpty == false)
                } else {
                    #expect(kind == .invalidConfiguration)
                    #expect(server.requestCount == 0)
                }
            }
        }
    }
}
