import Fiber
import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// The WebSocket client inside the Fiber API: the handshake goes through the
/// client's interceptors, failures arrive as `FiberError`, defaults come from
/// `FiberDefaults`.
@Suite(.serialized) struct FiberBridgeTests {
    @Test func interceptorsAddTheirHeadersToTheHandshake() async throws {
        let server = try await TestWebSocketServer.start()
        let httpBase = "http://127.0.0.1:\(server.port)"
        let fiber = Fiber(httpBase) {
            $0.interceptors = [AuthInterceptor(tokenProvider: { "ws-token" })]
            $0.defaultHeaders = ["X-Client": "fiber-tests"]
        }
        let socket = try await fiber.webSocket("/chat", headers: ["X-Room": "7"])
        try await socket.send(.text("hi"))
        var events = socket.events.makeAsyncIterator()
        while let event = await events.next() { if case .message = event { break } }
        let upgrade = try #require(server.requests.first)
        #expect(upgrade.headers["Authorization"] == "Bearer ws-token")
        #expect(upgrade.headers["X-Client"] == "fiber-tests")
        #expect(upgrade.headers["X-Room"] == "7")
        #expect(upgrade.headers["Upgrade"]?.lowercased() == "websocket")
        socket.close()
        await server.shutdown()
    }

    @Test func refusedUpgradeIsAFiberNetworkErrorWithTheStatus() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(refuse: (status: 401, body: "who are you")))
        let fiber = Fiber("http://127.0.0.1:\(server.port)")
        let ws = await refusal { try await fiber.webSocket("/chat") }
        #expect(ws?.kind == .upgradeFailed && ws?.status == 401)
        await server.shutdown()
        let invalid = WebSocketError(.invalidURL, "ftp://x")
        if case .invalidURL = invalid.fiberError {} else { Issue.record("invalid URL maps to .invalidURL") }
        if case .timeout = WebSocketError(.pingTimeout, "silent").fiberError {} else { Issue.record("ping timeout maps to .timeout") }
    }

    @Test func defaultsComeFromFiberDefaults() {
        #expect(WebSocketDefaults.closeCode == FiberDefaults.shared.webSocketDefaultCloseCode)
        #expect(WebSocketDefaults.jitterFraction == FiberDefaults.shared.jitterFraction)
    }
}
