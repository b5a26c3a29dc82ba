import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Logging
import Testing

/// What the library logs, and at which levels: errors it throws are the
/// caller's to log; connection-level events go to the runtime's logger at
/// debug and trace, their values in metadata.
@Suite struct ObservabilityLoggingTests {
    @Test func errorsThrownToTheCallerAreNotLoggedAsErrors() async throws {
        let collector = TestTraceCollector()
        let refusing = RefusingPort()
        try await withLiveServer { _, transport in
            let fiber = Fiber("http://127.0.0.1:\(refusing.port)") {
                $0.transport = transport
                $0.logger = collector.logger()
                $0.validateStatus = { $0 < 400 }
            }
            await #expect(throws: FiberError.self) { try await fiber.get("/") }
        }
        withExtendedLifetime(refusing) {}
        #expect(collector.logs.contains { $0.level == .debug && $0.message.hasPrefix("✗ GET") })
        #expect(!collector.logs.contains { $0.level >= .warning })
    }

    @Test func runtimeLogsPoolWaitsAndIdleClosesAtDebugAndTrace() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "fiber-log-test")
        let handler = RecordingLogHandler()
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = 1
        configuration.idleTimeout = .milliseconds(50)
        configuration.logger = Logger(label: "fiber.runtime") { _ in handler }
        let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
        let server = try await TestHTTPServer.start(on: group.loops[0])
        let gate = TestGate()
        server.route("/held") { _ in
            await gate.wait()
            return .ok("done")
        }
        let port = try #require(URL(string: server.baseURL)?.port)
        let fiber = Fiber(server.baseURL) { $0.transport = transport }
        let first = Task { try await fiber.get("/held").text }
        try await waitUntil("the first request holds the connection") { await gate.waiting == 1 }
        let second = Task { try await fiber.get("/held").text }
        try await waitUntil("the second request waits") {
            handler.records.contains { $0.message.contains("pool is at its limit") }
        }
        await gate.open()
        #expect(try await first.value == "done")
        #expect(try await second.value == "done")
        let wait = try #require(handler.records.first { $0.message.contains("pool is at its limit") })
        #expect(wait.level == .debug)
        #expect(wait.metadata["server.address"] == "127.0.0.1" && wait.metadata["server.port"] == String(port))
        #expect(wait.metadata["fiber.pool.waiting"] == "1" && wait.metadata["fiber.pool.leased"] == "1")

        try await waitUntil("the idle connection closes") {
            handler.records.contains { $0.message == "idle connection closed" }
        }
        let closed = try #require(handler.records.first { $0.message == "idle connection closed" })
        #expect(closed.level == .trace && closed.metadata["server.port"] == String(port))
        #expect(!handler.records.contains { $0.level > .debug })

        await transport.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    /// A TLS connection that resumed no session says so at trace; resumed ones say nothing.
    @Test func fullTLSHandshakesAreLoggedAtTrace() async throws {
        let certificates = try await TestCertificates.shared()
        let group = EventLoopGroup(loopCount: 1, name: "fiber-tls-log-test")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: certificates.serverIdentity())
        let server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
        server.route("/hello", respond: .ok("hi"))
        var configuration = HTTPClient.Configuration()
        configuration.tls = certificates.clientTrustingRoot
        let handler = RecordingLogHandler()
        configuration.logger = Logger(label: "fiber.runtime") { _ in handler }
        let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
        let fiber = Fiber(server.baseURL) { $0.transport = transport }
        for _ in 1...3 {
            // A new connection each time: the first handshake is full, the others resume.
            #expect(try await fiber.get("/hello", headers: ["Connection": "close"]).text == "hi")
        }
        let full = server.tlsHandshakes.filter { !$0.resumedSession }.count
        let lines = handler.records.filter { $0.message.hasPrefix("TLS session not resumed") }
        #expect(server.tlsHandshakes.count == 3 && full >= 1)
        #expect(lines.count == full)
        #expect(lines.allSatisfy { $0.level == .trace && $0.metadata["tls.resumed"] == "false" && $0.metadata["url.scheme"] == "https" })
        await transport.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }
}
