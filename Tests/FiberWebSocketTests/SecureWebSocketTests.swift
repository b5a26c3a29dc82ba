import FiberRuntime
import FiberTesting
import FiberWebSocket
import Testing

/// `wss://` over the runtime's TLS: echo, verification and pins, with the
/// loopback WebSocket test server in TLS mode and the test certificates.
@Suite(.serialized) struct SecureWebSocketTests {
    static func server(chain: String = "chain.pem") async throws -> (TestWebSocketServer, TestCertificates) {
        let certificates = try await TestCertificates.shared()
        let server = try await TestWebSocketServer.start(tls: .server(identity: certificates.serverIdentity(chain)))
        return (server, certificates)
    }

    static func configuration(_ certificates: TestCertificates) -> WebSocketConfiguration {
        var configuration = WebSocketConfiguration()
        configuration.tls.trustRoots = .pem(certificates.bytes("root.pem"))
        return configuration
    }

    @Test func echoOverTLS() async throws {
        let (server, certificates) = try await Self.server()
        #expect(server.url.hasPrefix("wss://"))
        let socket = try await WebSocketClient.open(server.url, configuration: Self.configuration(certificates))
        try await socket.send(.text("secret hello"))
        var events = socket.events.makeAsyncIterator()
        var echoed: WebSocketMessage?
        while let event = await events.next() {
            if case .message(let message) = event { echoed = message; break }
        }
        #expect(echoed == .text("secret hello"))
        socket.close(code: 1000, reason: "done")
        await server.shutdown()
    }

    @Test func untrustedServerIsATLSErrorAndNoUpgradeIsSent() async throws {
        let (server, _) = try await Self.server(chain: "self-signed.pem")
        do {
            _ = try await WebSocketClient.open(server.url)  // the system's trust store: the test CA is not in it
            Issue.record("a self-signed server must be refused")
        } catch let error as WebSocketError {
            #expect(error.kind == .tls)
            #expect(error.tls?.kind == .selfSignedCertificate, "\(error)")
        }
        #expect(server.requests.isEmpty, "no upgrade request reaches an unverified server")
        await server.shutdown()
    }

    @Test func pinMismatchIsRefused() async throws {
        let (server, certificates) = try await Self.server()
        var configuration = Self.configuration(certificates)
        configuration.tls.pins = ["127.0.0.1": [try CertificatePin.certificate(file: certificates.path("root.der"))]]
        await #expect { _ = try await WebSocketClient.open(server.url, configuration: configuration) } throws: {
            ($0 as? WebSocketError)?.tls?.kind == .pinMismatch
        }
        #expect(server.requests.isEmpty)
        await server.shutdown()
    }
}
