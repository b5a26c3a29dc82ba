import FiberTesting
import FiberWebSocket
import Testing

/// `WebSocketRegistry.closeAll()` against the loopback WebSocket server.
@Suite(.timeLimit(.minutes(1)))
struct WebSocketRegistryTests {
    @Test func aReconnectingSocketClosesWithGoingAwayAndDoesNotReconnect() async throws {
        let server = try await TestWebSocketServer.start()
        let registry = WebSocketRegistry()
        let socket = registry.register(ReconnectingWebSocket(connect: { WebSocketClient.connect(to: server.url) },
                                                            strategy: .fixedDelay(0.01)))
        let run = Task { await socket.start() }
        let events = Task { await socket.events.collect() }
        try await waitUntil("the socket connected") { socket.state == .connected }
        #expect(registry.count == 1)

        await registry.closeAll()
        #expect(socket.state == .disconnected)
        await run.value
        let seen = await events.value
        #expect(seen.closeCode == WebSocketCloseCode.goingAway, "\(seen)")
        #expect(seen.filter { $0 == .connected }.count == 1)
        await server.waitForConnectionsToEnd()
        #expect(server.acceptedCount == 1, "no reconnection")
        await server.shutdown()
        let frames = await server.clientFrames.collect()
        #expect(frames.last?.opcode == .close)
        #expect(frames.last.map { Array($0.payload.prefix(2)) } == [0x03, 0xE9], "close code 1001")
    }

    @Test func aSocketRegisteredAfterCloseAllIsClosedAtOnce() async throws {
        let server = try await TestWebSocketServer.start()
        let registry = WebSocketRegistry()
        await registry.closeAll()
        let late = registry.register(WebSocketClient.connect(to: server.url))
        let seen = await late.events.collect()
        #expect(seen.closeCode == WebSocketCloseCode.goingAway, "\(seen)")
        #expect(registry.count == 0)
        await server.shutdown()
    }

    @Test func disconnectedSocketsAreDroppedAtTheNextRegistration() async throws {
        let server = try await TestWebSocketServer.start()
        let registry = WebSocketRegistry()
        let first = registry.register(WebSocketClient.connect(to: server.url))
        try await waitUntil("the first socket connected") { first.state == .connected }
        first.close()
        _ = await first.events.collect()
        let second = registry.register(WebSocketClient.connect(to: server.url))
        try await waitUntil("the second socket connected") { second.state == .connected }
        #expect(registry.count == 1)
        await registry.closeAll()
        #expect(second.state == .disconnected)
        await server.shutdown()
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// Every element until the sequence ends.
    func collect() async -> [Element] {
        var all: [Element] = []
        do {
            for try await element in self { all.append(element) }
        } catch {}
        return all
    }
}

extension [WebSocketEvent] {
    /// The code of the final `.disconnected`, if the events end with one.
    var closeCode: UInt16? {
        if case .disconnected(let code, _)? = last { code } else { nil }
    }
}
