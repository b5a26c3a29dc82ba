import FiberRuntime
import FiberTesting
import FiberWebSocket
import Testing

@Suite("ReconnectingWebSocket", .timeLimit(.minutes(1)))
struct ReconnectingTests {
    @Test func reconnectsAfterADropWithOneEventStream() async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo)
        let url = server.url
        let ws = ReconnectingWebSocket(connect: { WebSocketClient.connect(to: url, configuration: quietConfiguration()) },
                                       strategy: .fixedDelay(0.01))
        let running = Task { await ws.start() }
        var seen: [WebSocketEvent] = []
        var connects = 0
        for await event in ws.events {
            seen.append(event)
            switch event {
            case .connected:
                connects += 1
                if connects == 1 { await server.closeConnections() } else { try await ws.send(.text("again")) }
            case .message:
                ws.close(code: 1000, reason: "bye")
            default: break
            }
        }
        await running.value
        #expect(seen == [.connected, .disconnected(code: 1006, reason: "connection closed without a close frame"),
                         .connected, .message(.text("again")), .disconnected(code: 1000, reason: "")])
        #expect(ws.connectionCount == 2)
        #expect(ws.state == .disconnected)
        await server.shutdown()
    }

    @Test func givesUpWhenTheStrategySaysSo() async throws {
        let refusing = RefusingPort()
        let port = refusing.port
        let ws = ReconnectingWebSocket(connect: { WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/") },
                                       strategy: .fixedDelay(0.001, maxAttempts: 2))
        let running = Task { await ws.start() }
        let events = await allEvents(ws)
        await running.value
        #expect(events.filter { if case .error = $0 { true } else { false } }.count == 3)
        #expect(ws.connectionCount == 3)
        withExtendedLifetime(refusing) {}
    }

    @Test func noneDoesNotReconnect() async throws {
        let server = try await TestWebSocketServer.start(behavior: .script([.closeConnection]))
        let url = server.url
        let ws = ReconnectingWebSocket(connect: { WebSocketClient.connect(to: url, configuration: quietConfiguration()) }, strategy: .none)
        let running = Task { await ws.start() }
        let events = await allEvents(ws)
        await running.value
        #expect(events.count == 2 && ws.connectionCount == 1)
        await #expect(throws: WebSocketError.self) { try await ws.send(.text("x")) }
        await server.shutdown()
    }
}

@Suite("MockWebSocket")
struct MockWebSocketTests {
    struct Chat: Codable, Equatable { let user: String; let text: String }

    @Test func pairedEndsTalkAndCloseTogether() async throws {
        let (client, server) = MockWebSocket.pair()
        try await server.send(.text("hello from server"))
        try await server.send(.json(Chat(user: "alice", text: "hi")))
        var iterator = client.events.makeAsyncIterator()
        #expect(await iterator.next() == .connected)
        #expect(await iterator.next() == .message(.text("hello from server")))
        guard case .message(let m)? = await iterator.next() else { Issue.record("no message"); return }
        let chat: Chat = try m.decode()
        #expect(chat == Chat(user: "alice", text: "hi"))
        client.close(code: 1000, reason: "done")
        #expect(client.state == .disconnected)
        #expect(server.state == .disconnected)
        #expect(await iterator.next() == .disconnected(code: 1000, reason: "done"))
        #expect(await iterator.next() == nil)
        #expect(await allEvents(server).last == .disconnected(code: 1000, reason: "done"))
        await #expect(throws: WebSocketError.self) { try await client.send(.text("late")) }
    }
}
