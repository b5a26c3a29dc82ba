import FiberRuntime
import FiberTesting
import FiberWebSocket
import Testing

@Suite("No leaks", .timeLimit(.minutes(1)))
struct LeakTests {
    /// Clean closes, failures and timeouts on a private group: afterwards no
    /// socket or timer handle is left open on any loop.
    @Test func connectionsLeaveNoHandlesBehind() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "ws-leak")
        let echo = try await TestWebSocketServer.start(behavior: .echo, on: group.loops[0])
        let silent = try await TestWebSocketServer.start(behavior: .script([.beSilent]), on: group.loops[0])
        let resetting = try await TestWebSocketServer.start(behavior: .script([.send([0x82, 0x7E, 0x10]), .reset]), on: group.loops[0])
        var keepAlive = WebSocketConfiguration()
        keepAlive.pingInterval = .milliseconds(10)
        keepAlive.pingTimeout = .milliseconds(50)
        keepAlive.closeTimeout = .milliseconds(50)
        for _ in 0..<5 {
            // No keep-alive here: a slow (sanitized) run must not turn a late pong into a failure.
            let ws = try await WebSocketClient.open(echo.url, configuration: quietConfiguration(), on: group.loops[1])
            try await ws.send(.text("x"))
            ws.close()
            #expect(ending(await allEvents(ws)).code == 1000)
        }
        let dead = WebSocketClient.connect(to: silent.url, configuration: keepAlive, on: group.loops[1])
        #expect(ending(await allEvents(dead)).error?.kind == .pingTimeout)
        let cut = WebSocketClient.connect(to: resetting.url, configuration: keepAlive, on: group.loops[1])
        #expect(ending(await allEvents(cut)).code == 1006)
        for server in [echo, silent, resetting] { await server.shutdown() }
        #expect(try await group.leakedHandles() == [:])
        try await group.shutdown()
    }
}
