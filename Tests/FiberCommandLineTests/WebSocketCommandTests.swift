import ArgumentParser
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `fiber ws` against the loopback WebSocket test server.
@Suite(.serialized) struct WebSocketCommandTests {
    @Test func scriptedSessionPrintsTheEchoes() async throws {
        let server = try await TestWebSocketServer.start()
        let (out, code) = try await CommandTests.run(WS.self, [server.url, "--send", "hello", "--send", "world"])
        #expect(code == 0)
        #expect(out.standardOutput == "hello\nworld\n")
        #expect(out.standardError.contains("connected to") && out.standardError.contains("disconnected: 1000"))
        await server.shutdown()
    }

    @Test func benchReportsEchoRoundTrips() async throws {
        let server = try await TestWebSocketServer.start()
        let (out, code) = try await CommandTests.run(WS.self, [server.url, "--bench", "-c", "4", "-d", "0.3", "--size", "64", "--json"])
        #expect(code == 0)
        let report = try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any]
        let succeeded = report?["succeeded"] as? Int ?? 0
        #expect(succeeded > 0)
        #expect(report?["failed"] as? Int == 0)
        #expect(report?["bytes"] as? Int == succeeded * 64)
        await server.shutdown()
    }

    @Test func refusedUpgradeIsAnError() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(refuse: (status: 403, body: "go away")))
        let (out, code) = try await CommandTests.run(WS.self, [server.url, "--send", "x"])
        #expect(code == FiberExitCode.clientErrorStatus.rawValue)
        #expect(out.standardError.hasPrefix("fiber: ") && out.standardError.contains("403"), "\(out.standardError)")
        await server.shutdown()
    }
}
