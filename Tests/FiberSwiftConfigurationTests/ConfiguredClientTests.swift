import Configuration
@testable import Fiber
import FiberRuntime
import FiberSwiftConfiguration
import FiberTesting
import Foundation
import Testing

/// Clients made from a configuration file and providers, sending real requests to
/// the loopback TLS test server: the read timeout, the trust roots, pins and the
/// client identity read from configuration are the ones that apply.
@Suite("A client configured from files", .serialized, .timeLimit(.minutes(1)))
struct ConfiguredClientTests {
    /// A TLS test server for `/hello` and `/silent` (never answers); `tls` adjusts its TLS.
    static func withServer(_ tls: (inout TLSConfiguration, TestCertificates) -> Void = { _, _ in },
                           _ body: (TestHTTPServer, TestCertificates) async throws -> Void) async throws {
        let pki = try await TestCertificates.shared()
        var configuration = TestHTTPServer.Configuration()
        configuration.tls = .server(identity: pki.serverIdentity())
        tls(&configuration.tls!, pki)
        let server = try await TestHTTPServer.start(configuration: configuration)
        server.route("/hello", respond: .ok("hi"))
        server.route("/silent", respond: .fault(.silent))
        do {
            try await body(server, pki)
        } catch {
            Issue.record(error)
        }
        await server.shutdown()
    }

    /// A client made from `configuration`, with its own transport (closed by `close`).
    static func client(_ server: TestHTTPServer, _ configuration: Fiber.Configuration) throws -> (Fiber, HTTPTransport) {
        let fiber = Fiber(server.baseURL) { $0 = configuration }
        let transport = try #require(fiber.transport as? HTTPTransport)
        #expect(transport.client !== HTTPTransport.shared.client)
        return (fiber, transport)
    }

    /// Writes `lines` to a fresh environment file and reads it.
    static func environmentFile(_ lines: [String]) async throws -> ConfigReader {
        let path = NSTemporaryDirectory() + "fiber-config-\(UInt32.random(in: 0...UInt32.max)).env"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return ConfigReader(provider: try await EnvironmentVariablesProvider(environmentFilePath: .init(path)))
    }

    @Test func theReadTimeoutAndTrustRootsOfAConfigFileApply() async throws {
        try await Self.withServer { server, pki in
            let reader = try await Self.environmentFile([
                "# the checkout service's client",
                "HTTP_READ_IDLE_TIMEOUT=0.2",
                "HTTP_TLS_TRUST_ROOTS=\(pki.path("root.pem"))",
                "DEFAULT_HEADERS=X-Service: checkout",
            ])
            let (fiber, transport) = try Self.client(server, try Fiber.Configuration(configReader: reader))
            #expect(transport.client.configuration.readIdleTimeout == .seconds(0.2))

            // The test CA is known only through the file's trust roots.
            let hello = try await fiber.get("/hello")
            #expect(String(decoding: hello.data, as: UTF8.self) == "hi")
            #expect(server.lastRequest?.headers.first(name: "X-Service") == "checkout")

            do {
                _ = try await fiber.get("/silent")
                Issue.record("a silent server must time out")
            } catch let error as FiberError {
                guard case .timeout = error else { Issue.record("expected .timeout, got \(error)"); return }
            }
            await transport.shutdown()
        }
    }

    @Test func withoutTheTrustRootsKeyTheSystemStoreRefusesTheTestCA() async throws {
        try await Self.withServer { server, _ in
            let reader = try await Self.environmentFile(["HTTP_READ_IDLE_TIMEOUT=5"])
            let (fiber, transport) = try Self.client(server, try Fiber.Configuration(configReader: reader))
            do {
                _ = try await fiber.get("/hello")
                Issue.record("an unknown CA must be refused")
            } catch let error as FiberError {
                #expect(error.tlsError != nil, "\(error)")
            }
            #expect(server.requestCount == 0)
            await transport.shutdown()
        }
    }

    @Test func pinsFromConfigurationAreChecked() async throws {
        try await Self.withServer { server, pki in
            let base: [AbsoluteConfigKey: ConfigValue] = ["http.tls.trustRoots": .init(.string(pki.path("root.pem")), isSecret: false)]
            // The intermediate the server sends, pinned whole by its file: accepted.
            var matching = base
            matching["http.tls.pins"] = .init(.stringArray(["127.0.0.1=\(pki.path("intermediate.der"))"]), isSecret: false)
            let (pinned, pinnedTransport) = try Self.client(
                server, try Fiber.Configuration(configReader: ConfigReader(provider: InMemoryProvider(values: matching))))
            #expect(try await pinned.get("/hello").statusCode == 200)
            await pinnedTransport.shutdown()

            // A key no certificate of the chain has: refused before anything is sent.
            var other = base
            other["http.tls.pins"] = .init(.stringArray(["127.0.0.1=sha256/\(EveryKey.digest)"]), isSecret: false)
            let before = server.requestCount
            let (mismatched, mismatchedTransport) = try Self.client(
                server, try Fiber.Configuration(configReader: ConfigReader(provider: InMemoryProvider(values: other))))
            do {
                _ = try await mismatched.get("/hello")
                Issue.record("a pin mismatch must fail")
            } catch let error as FiberError {
                #expect(error.tlsError?.kind == .pinMismatch, "\(error)")
            }
            #expect(server.requestCount == before)
            await mismatchedTransport.shutdown()
        }
    }

    @Test func aClientIdentityFromConfigurationIsPresented() async throws {
        try await Self.withServer({ tls, pki in
            tls.requireClientCertificate = true
            tls.trustRoots = .pem(pki.bytes("root.pem"))
        }) { server, pki in
            let environment = EnvironmentVariablesProvider(
                environmentVariables: ["HTTP_TLS_IDENTITY_PASSPHRASE": TestCertificates.passphrase],
                secretsSpecifier: .specific(["HTTP_TLS_IDENTITY_PASSPHRASE"]))
            let file = InMemoryProvider(values: [
                "http.tls.trustRoots": .init(.string(pki.path("root.pem")), isSecret: false),
                "http.tls.identity.certificateChainFile": .init(.string(pki.path("client-chain.pem")), isSecret: false),
                "http.tls.identity.privateKeyFile": .init(.string(pki.path("client-encrypted.key")), isSecret: false),
            ])
            let reader = ConfigReader(providers: [environment, file])
            let (fiber, transport) = try Self.client(server, try Fiber.Configuration(configReader: reader))
            #expect(try await fiber.get("/hello").statusCode == 200)
            let presented = try #require(server.tlsHandshakes.first?.peerCertificates.first)
            #expect(CertificatePin.certificate(der: presented) == (try CertificatePin.certificate(file: pki.path("client-chain.pem"))))
            await transport.shutdown()
        }
    }
}
