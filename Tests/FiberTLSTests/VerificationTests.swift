import FiberRuntime
import FiberTesting
import Testing

/// The client's verification over real sockets against the project's HTTPS
/// test server: the good chain connects; each bad certificate is refused
/// with its own kind, and the server never sees a request.
@Suite(.serialized) struct VerificationTests {
    @Test func goodChainConnectsWithALPNAndVerifiedHost() async throws {
        try await withTLSServer { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello over TLS")
            #expect(response.timing.tls != nil)
            let handshake = try #require(server.tlsHandshakes.first)
            #expect(handshake.applicationProtocol == "http/1.1")
            #expect(handshake.protocolVersion == "TLSv1.3")
            // Keep-alive over TLS: the second request reuses the connection.
            let again = try await client.get(server.url("/hello"))
            #expect(again.timing.reusedConnection)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func localhostNameVerifiesToo() async throws {
        try await withTLSServer { client, server, _ in
            let response = try await client.get("https://localhost:\(server.port)/hello")
            #expect(response.status == 200)
        }
    }

    @Test func tls12OnlyServerStillConnects() async throws {
        try await withTLSServer(server: { tls, _ in tls.maximumVersion = .tls12 }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
            #expect(server.tlsHandshakes.first?.protocolVersion == "TLSv1.2")
        }
    }

    @Test(arguments: [
        ("expired.pem", TLSError.Kind.certificateExpired),
        ("not-yet-valid.pem", .certificateNotYetValid),
        ("wrong-host.pem", .hostnameMismatch),
        ("self-signed.pem", .selfSignedCertificate),
        ("untrusted-root.pem", .untrustedRoot),
        ("leaf-only.pem", .issuerNotFound),
    ])
    func badCertificateIsRefusedWithItsOwnKind(chain: String, kind: TLSError.Kind) async throws {
        try await withTLSServer(chain: chain) { client, server, _ in
            await expectTLSError(kind) { _ = try await client.get(server.url("/hello")) }
            do {
                _ = try await client.get(server.url("/hello"))
            } catch let error as HTTPClientError {
                #expect(error.kind == .tls)
                #expect(error.tls?.host == "127.0.0.1")
                #expect(error.tls?.verifyCode != nil)
                #expect("\(error)".contains(kind.description), "a person reads the reason: \(error)")
            }
            #expect(server.requestCount == 0, "nothing may be sent to an unverified server")
        }
    }

    @Test func untrustedByDefaultSystemStore() async throws {
        // The test root is not in the system's store: the default configuration refuses it.
        try await withTLSServer(client: { configuration, _ in configuration.tls = TLSConfiguration() }) { client, server, _ in
            await expectTLSError(.issuerNotFound) { _ = try await client.get(server.url("/hello")) }
        }
    }

    @Test func insecureNoVerificationAcceptsAnything() async throws {
        try await withTLSServer(chain: "self-signed.pem", client: { configuration, _ in
            configuration.tls.verification = .insecureNoVerification
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func caFromFileAndMinimumVersionTLS13() async throws {
        try await withTLSServer(server: { tls, _ in tls.maximumVersion = .tls12 }, client: { configuration, pki in
            configuration.tls.trustRoots = .file(pki.path("root.pem"))
            configuration.tls.minimumVersion = .tls13
        }) { client, server, _ in
            await expectTLSError(.protocolVersion) { _ = try await client.get(server.url("/hello")) }
        }
    }

    @Test func plainHTTPServerOnTheTLSPortIsAHandshakeFailure() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "tls-test")
        let server = try await TestHTTPServer.start(on: group.loops[0])
        let client = HTTPClient(eventLoopGroup: group, configuration: {
            var configuration = HTTPClient.Configuration()
            configuration.socket.connectTimeout = .seconds(5)
            return configuration
        }())
        await expectTLSError(.handshakeFailed) { _ = try await client.get("https://127.0.0.1:\(server.port)/") }
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    @Test func silentServerTimesOutTheHandshake() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "tls-test")
        // Accepts TCP and never answers the ClientHello.
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0, on: group.loops[0])
        let holder = Task {
            var held: [SocketStream] = []
            for try await stream in listener.connections { held.append(stream) }
            _ = held
        }
        var configuration = HTTPClient.Configuration()
        configuration.socket.connectTimeout = .milliseconds(300)
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        await expectTLSError(.handshakeTimeout) { _ = try await client.get("https://127.0.0.1:\(listener.port)/") }
        await client.shutdown()
        holder.cancel()
        await listener.close()
        try await group.shutdown()
    }

    @Test func badConfigurationIsAClearError() async throws {
        try await withTLSServer(client: { configuration, _ in
            configuration.tls.trustRoots = .pem(Array("not a certificate".utf8))
        }) { client, server, _ in
            await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
        }
        try await withTLSServer(client: { configuration, _ in
            configuration.tls.trustRoots = .file("/nonexistent/ca.pem")
        }) { client, server, _ in
            await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
        }
    }
}
