@testable import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// What a service owner tunes, set on `Fiber.Configuration.http` with no runtime
/// types built by hand: the per-client connection limit, body limit, read timeout,
/// TLS trust, and a value that cannot work.
@Suite("Fiber.Configuration.http", .timeLimit(.minutes(1)))
struct HTTPSettingsTests {
    /// The client's own transport, to close its connections at the end of a test.
    private func closeConnections(of fiber: Fiber) async {
        let transport = fiber.transport as? HTTPTransport
        #expect(transport?.client !== HTTPTransport.shared.client, "a test must not close the shared client")
        await transport?.shutdown()
    }

    @Test func theConnectionLimitHoldsForTheWholeClientOverEveryLoop() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/slow") { _ in .delay(.milliseconds(50), then: .ok("x")) }
        let fiber = Fiber(server.url("")) { $0.http.maxConnectionsPerHost = 3 }
        #expect(EventLoopGroup.shared.loops.count >= 1)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 { group.addTask { try await fiber.get("/slow").statusCode } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(server.connectionCount <= 3, "the shared loops opened \(server.connectionCount) connections")
        let stats = try #require(await fiber.connectionStatistics())
        #expect(stats.open <= 3 && stats.leased == 0 && stats.waiting == 0, "\(stats)")
        await closeConnections(of: fiber)
        await server.shutdown()
    }

    @Test func aLimitOfOneMeansOneConnectionEvenOnSeveralLoops() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/slow") { _ in .delay(.milliseconds(20), then: .ok("x")) }
        let fiber = Fiber(server.url("")) { $0.http.maxConnectionsPerHost = 1 }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try await fiber.get("/slow").statusCode } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(server.connectionCount == 1)
        await closeConnections(of: fiber)
        await server.shutdown()
    }

    @Test func clientsThatSetNothingShareOneTransportAndOthersGetTheirOwn() async throws {
        let plain = Fiber("http://127.0.0.1:1")
        let other = Fiber("http://127.0.0.1:1") { $0.defaultHeaders = ["X-A": "1"] }
        let tuned = Fiber("http://127.0.0.1:1") { $0.http.readIdleTimeout = .seconds(5) }
        let shared = HTTPTransport.shared.client
        #expect((plain.transport as? HTTPTransport)?.client === shared)
        #expect((other.transport as? HTTPTransport)?.client === shared)
        let own = try #require((tuned.transport as? HTTPTransport)?.client)
        #expect(own !== shared)
        #expect(own.configuration.readIdleTimeout == .seconds(5))
        // A transport given outright wins; `http` is then ignored.
        let given = HTTPTransport(configuration: .init())
        let both = Fiber("http://127.0.0.1:1") {
            $0.transport = given
            $0.http.maxConnectionsPerHost = 2
        }
        #expect((both.transport as? HTTPTransport)?.client === given.client)
    }

    @Test func theBodyLimitIsSetFromFiber() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/big", respond: .ok(String(repeating: "x", count: 4096)))
        let fiber = Fiber(server.url("")) { $0.http.maxResponseBodySize = 1024 }
        do {
            _ = try await fiber.get("/big")
            Issue.record("a body past the limit must fail")
        } catch FiberError.networkError(let underlying as HTTPClientError) {
            #expect(underlying.kind == .bodyTooLarge)
        }
        await closeConnections(of: fiber)
        await server.shutdown()
    }

    @Test func theReadTimeoutIsSetFromFiber() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/silent", respond: .fault(.silent))
        let fiber = Fiber(server.url("")) { $0.http.readIdleTimeout = .milliseconds(200) }
        await #expect(throws: FiberError.self) { _ = try await fiber.get("/silent") }
        do {
            _ = try await fiber.get("/silent")
        } catch let error as FiberError {
            guard case .timeout = error else { Issue.record("expected .timeout, got \(error)"); return }
        }
        await closeConnections(of: fiber)
        await server.shutdown()
    }

    @Test func tlsTrustIsSetFromFiber() async throws {
        let certificates = try await TestCertificates.shared()
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: certificates.serverIdentity())
        let server = try await TestHTTPServer.start(configuration: serverConfiguration)
        server.route("/hello", respond: .ok("hi"))
        // The system's roots do not know the test CA: refused, typed, nothing sent.
        let untrusting = Fiber(server.baseURL) { $0.http.readIdleTimeout = .seconds(10) }
        do {
            _ = try await untrusting.get("/hello")
            Issue.record("an unknown CA must be refused")
        } catch let error as FiberError {
            #expect(error.tlsError != nil, "\(error)")
        }
        #expect(server.requestCount == 0)
        let trusting = Fiber(server.baseURL) { $0.http.tls = certificates.clientTrustingRoot }
        let response = try await trusting.get("/hello")
        #expect(String(decoding: response.data, as: UTF8.self) == "hi")
        await closeConnections(of: untrusting)
        await closeConnections(of: trusting)
        await server.shutdown()
    }

    @Test func aValueThatCannotWorkFailsEachRequestNamingTheSetting() async throws {
        let fiber = Fiber("http://127.0.0.1:1") { $0.http.maxConnectionsPerHost = 0 }
        do {
            _ = try await fiber.get("/")
            Issue.record("a limit of zero must fail")
        } catch FiberError.networkError(let underlying as Fiber.ConfigurationError) {
            #expect(underlying.setting == "maxConnectionsPerHost")
        }
    }
}
