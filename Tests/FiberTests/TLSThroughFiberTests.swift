import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// HTTPS through the whole Fiber pipeline: TLS's typed errors reach users
/// through `FiberError.networkError` with their detail, and nothing is sent.
@Suite(.serialized) struct TLSThroughFiberTests {
    struct Greeting: Decodable { let hello: String }

    static func withHTTPSServer(_ configure: (inout TLSConfiguration, TestCertificates) throws -> Void,
                                _ body: (Fiber, TestHTTPServer) async throws -> Void) async throws {
        let certificates = try await TestCertificates.shared()
        let group = EventLoopGroup(loopCount: 1, name: "fiber-tls-test")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: certificates.serverIdentity())
        let server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
        server.route("/greeting", respond: .json(#"{"hello":"tls"}"#))
        var configuration = HTTPClient.Configuration()
        configuration.tls = certificates.clientTrustingRoot
        try configure(&configuration.tls, certificates)
        let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
        let fiber = Fiber(baseURL: try #require(URL(string: server.baseURL)), transport: transport)
        do {
            try await body(fiber, server)
        } catch {
            Issue.record(error)
        }
        await transport.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    @Test func httpsThroughFiber() async throws {
        try await Self.withHTTPSServer({ _, _ in }) { fiber, _ in
            let greeting: Greeting = try await fiber.get("/greeting").decode()
            #expect(greeting.hello == "tls")
        }
    }

    @Test func pinMismatchIsANetworkErrorWithTheHostAndReason() async throws {
        try await Self.withHTTPSServer({ tls, certificates in
            tls.pins = ["127.0.0.1": [try CertificatePin.certificate(file: certificates.path("root.der"))]]
        }) { fiber, server in
            do {
                _ = try await fiber.get("/greeting")
                Issue.record("a pin mismatch must fail")
            } catch let error as FiberError {
                guard case .networkError = error else { Issue.record("expected .networkError, got \(error)"); return }
                #expect(error.tlsError?.kind == .pinMismatch)
                #expect(error.tlsError?.host == "127.0.0.1")
                #expect("\(error)".contains("pin"))
            }
            #expect(server.requestCount == 0)
        }
    }
}
