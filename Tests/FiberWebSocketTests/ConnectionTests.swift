import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Foundation
import Testing

@Suite("WebSocket connection", .timeLimit(.minutes(1)))
struct ConnectionTests {
    struct Chat: Codable, Equatable { let user: String; let text: String }

    @Test func echoesTextBinaryJSONAndLargeFragmentedMessages() async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo)
        var configuration = quietConfiguration()
        configuration.maxOutgoingFrameSize = 64 * 1024
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        #expect(ws.state == .connected)
        let big = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0) }
        try await ws.send(.text("hello"))
        try await ws.send(.binary([0, 1, 2, 255]))
        try await ws.send(.json(Chat(user: "alice", text: "hi")))
        try await ws.send(.binary(big))
        var received: [WebSocketMessage] = []
        var iterator = ws.events.makeAsyncIterator()
        #expect(await iterator.next() == .connected)
        while received.count < 4, let event = await iterator.next() {
            if case .message(let m) = event { received.append(m) }
        }
        #expect(received[0] == .text("hello"))
        #expect(received[1] == .binary([0, 1, 2, 255]))
        #expect(try received[2].decode(Chat.self) == Chat(user: "alice", text: "hi"))
        #expect(received[3] == .binary(big))
        ws.close(code: 1000, reason: "done")
        var rest: [WebSocketEvent] = []
        while let event = await iterator.next() { rest.append(event) }
        #expect(rest == [.disconnected(code: 1000, reason: "")])
        #expect(ws.state == .disconnected)
        await server.waitForConnectionsToEnd()
        await server.shutdown()
        var frames: [WebSocketFrame] = []
        for await f in server.clientFrames { frames.append(f) }
        #expect(frames.filter { $0.opcode == .continuation }.count == 15)   // 1 MB in 64 KiB frames
        #expect(frames.last == WebSocketFrame(opcode: .close, payload: closePayload(1000, "done")))
    }

    @Test func aClientClosingBeforeTheHandshakeEndsClosesRightAfterIt() async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo)
        let ws = WebSocketClient.connect(to: server.url, configuration: quietConfiguration())
        ws.close(code: 4000, reason: "early")
        let events = await allEvents(ws)
        #expect(events == [.connected, .disconnected(code: 4000, reason: "")])
        await server.shutdown()
    }

    @Test func theServerClosingFirstIsEchoed() async throws {
        let (events, frames) = try await runScript([
            .sendFrame(WebSocketFrame(opcode: .close, payload: closePayload(4001, "bye"))), .expectClose,
        ])
        #expect(events == [.connected, .disconnected(code: 4001, reason: "bye")])
        #expect(sentCloseCode(frames) == 4001)
    }

    @Test func sendingAfterCloseIsRefused() async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo)
        let ws = try await WebSocketClient.open(server.url, configuration: quietConfiguration())
        ws.close()
        await #expect { try await ws.send(.text("late")) } throws: { ($0 as? WebSocketError)?.kind == .notConnected }
        _ = await allEvents(ws)
        await server.shutdown()
    }

    @Test func aRefusedUpgradeReportsStatusAndBody() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(refuse: (403, "no entry")))
        await #expect {
            _ = try await WebSocketClient.open(server.url)
        } throws: { error in
            let e = error as? WebSocketError
            return e?.kind == .upgradeFailed && e?.status == 403 && e?.body == Array("no entry".utf8)
        }
        await server.shutdown()
    }

    @Test func aWrongAcceptKeyFailsTheHandshake() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(acceptOverride: "bm90IHRoZSByaWdodCBrZXk="))
        let events = await allEvents(WebSocketClient.connect(to: server.url))
        #expect(ending(events).error?.kind == .handshakeFailed)
        #expect(ending(events).code == 1006)
        await server.shutdown()
    }

    @Test func negotiatesASubprotocolAndSendsExtraHeaders() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(subprotocol: "v2.chat"))
        let ws = try await WebSocketClient.open(server.url, headers: ["Authorization": "Bearer token"],
                                                subprotocols: ["v1.chat", "v2.chat"], configuration: quietConfiguration())
        #expect(ws.subprotocol == "v2.chat")
        let request = try #require(server.requests.first)
        #expect(request.headers["Authorization"] == "Bearer token")
        #expect(request.headers["Sec-WebSocket-Protocol"] == "v1.chat, v2.chat")
        #expect(request.headers["Sec-WebSocket-Version"] == "13")
        ws.close()
        _ = await allEvents(ws)
        await server.shutdown()
    }

    @Test func aSubprotocolNeverOfferedFailsTheHandshake() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(subprotocol: "other"))
        await #expect { _ = try await WebSocketClient.open(server.url, subprotocols: ["mine"]) } throws: {
            ($0 as? WebSocketError)?.kind == .handshakeFailed
        }
        await server.shutdown()
    }

    @Test func aURLThatIsNotWebSocketIsRefused() async throws {
        await #expect { _ = try await WebSocketClient.open("http://127.0.0.1:1/") } throws: {
            ($0 as? WebSocketError)?.kind == .invalidURL
        }
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        let refusing = RefusingPort()
        await #expect { _ = try await WebSocketClient.open("ws://127.0.0.1:\(refusing.port)/") } throws: {
            let e = $0 as? WebSocketError
            return e?.kind == .transport && e?.transport?.kind == .connectionRefused
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func framesInTheSameReadAsThe101AreDelivered() async throws {
        let (events, _) = try await runScript([.expectClose], handshake: .init(trailingBytes: frame(0x81, Array("early".utf8))
            + frame(0x88, closePayload(1000))))
        #expect(events == [.connected, .message(.text("early")), .disconnected(code: 1000, reason: "")])
    }

    @Test func answersPingsWithTheSamePayload() async throws {
        let (events, frames) = try await runScript([
            .sendFrame(WebSocketFrame(opcode: .ping, payload: [1, 2, 3])), .receiveFrame,
            .sendFrame(WebSocketFrame(opcode: .close, payload: closePayload(1000))), .expectClose,
        ])
        #expect(frames.first == WebSocketFrame(opcode: .pong, payload: [1, 2, 3]))
        #expect(ending(events).code == 1000)
    }

    @Test func aSilentPeerIsDetectedByKeepAlivePings() async throws {
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = .milliseconds(20)
        configuration.pingTimeout = .milliseconds(100)
        let (events, frames) = try await runScript([.beSilent], configuration: configuration)
        #expect(ending(events).error?.kind == .pingTimeout)
        #expect(ending(events).code == 1006)
        _ = frames
    }

    @Test func keepAlivePingsAreSentAndAnswered() async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo)
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = .milliseconds(10)
        configuration.pingTimeout = .seconds(30)
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        var pings = 0
        for await frame in server.clientFrames where frame.opcode == .ping {
            pings += 1
            if pings == 3 { break }
        }
        #expect(ws.state == .connected)
        ws.close()
        #expect(ending(await allEvents(ws)).code == 1000)
        await server.shutdown()
    }

    @Test func aResetInTheMiddleOfAFrameIsATransportError() async throws {
        let (events, _) = try await runScript([.send([0x82, 0x7E, 0x10, 0x00] + [UInt8](repeating: 7, count: 100)), .reset])
        let end = ending(events)
        #expect(end.code == 1006)
        #expect(end.error?.kind == .transport || end.error == nil)
        #expect(events.first == .connected && messages(events).isEmpty)
    }

    @Test func theServerVanishingWithoutACloseFrameIs1006() async throws {
        let (events, _) = try await runScript([.sendFrame(WebSocketFrame(opcode: .text, payload: Array("last".utf8))), .closeConnection])
        #expect(events == [.connected, .message(.text("last")), .disconnected(code: 1006, reason: "connection closed without a close frame")])
    }

    @Test func anUnansweredCloseTimesOut() async throws {
        let server = try await TestWebSocketServer.start(behavior: .script([.beSilent]))
        var configuration = quietConfiguration()
        configuration.closeTimeout = .milliseconds(50)
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        ws.close(code: 1000, reason: "")
        let end = ending(await allEvents(ws))
        #expect(end.error?.kind == .closeTimeout && end.code == 1006)
        await server.shutdown()
    }

    @Test func stopsReadingWhenTheConsumerFallsBehindAndResumes() async throws {
        let message = [UInt8](repeating: 9, count: 256 * 1024)
        let count = 64   // 16 MiB: more than loopback socket buffers hold
        let steps: [TestWebSocketServer.Step] = Array(repeating: .sendFrame(WebSocketFrame(opcode: .binary, payload: message)), count: count)
            + [.sendFrame(WebSocketFrame(opcode: .close, payload: closePayload(1000))), .expectClose]
        let server = try await TestWebSocketServer.start(behavior: .script(steps))
        var configuration = quietConfiguration()
        configuration.receiveHighWatermark = 512 * 1024
        configuration.receiveLowWatermark = 128 * 1024
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        // Wait (by observed state) until the connection has paused its socket.
        while await !ws.isReadingPaused { try await Task.sleep(for: .milliseconds(2)) }
        #expect(ws.bufferedEventBytes <= 512 * 1024 + 2 * message.count)
        var received = 0
        for await event in ws.events {
            if case .message(let m) = event {
                #expect(m == .binary(message))
                received += 1
                #expect(ws.bufferedEventBytes <= 512 * 1024 + 2 * message.count)
            }
        }
        #expect(received == count)
        await server.shutdown()
    }
}
