import Fiber
import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// `Fiber.webSocket` sends the client's cookies that match the WebSocket URL (`ws` as `http`).
@Suite struct WebSocketCookieTests {
    @Test func theHandshakeSendsTheJarsMatchingCookies() async throws {
        let server = try await TestWebSocketServer.start()
        let base = "http://127.0.0.1:\(server.port)"
        let jar = CookieJar()
        #expect(try jar.setCookie("room=7; Path=/", from: base + "/") == .stored)
        #expect(try jar.setCookie("admin=1; Path=/admin", from: base + "/") == .stored)
        #expect(try jar.setCookie("other=1", from: "http://localhost:\(server.port)/") == .stored)
        let fiber = Fiber(base) { $0.cookieJar = jar }
        let socket = try await fiber.webSocket("/chat", headers: ["Cookie": "mine=1"])
        let upgrade = try #require(server.requests.first)
        #expect(upgrade.headers.values(name: "Cookie") == ["mine=1; room=7"])
        socket.close()
        await server.shutdown()
    }
}
