import FiberTesting
@testable import FiberWebSocket
import Testing

/// The order frames leave the client in, over a real socket: a pong decided
/// before a message is sent leaves before it (Autobahn 5.6, 5.19, 5.20).
@Suite("Control frame order", .timeLimit(.minutes(1)))
struct ControlFrameOrderTests {
    static let rounds = 50

    /// Fragment 1, a ping, fragment 2 (FIN): the client's echo of the message
    /// is sent after the ping was decoded, so the pong must reach the server first.
    static func round(_ i: Int) -> [UInt8] {
        frame(0x01, Array("a\(i)".utf8)) + frame(0x89, [UInt8(i)]) + frame(0x80, Array("b".utf8))
    }

    /// "pong 3", "text a3b", "close": short enough to read in a failure.
    static func describe(_ f: WebSocketFrame) -> String {
        switch f.opcode {
        case .text: "text \(String(decoding: f.payload, as: UTF8.self))"
        case .ping, .pong: "\(f.opcode) \(f.payload.map(String.init).joined(separator: ","))"
        default: "\(f.opcode) \(f.payload.count) B"
        }
    }

    @Test func aPongAnsweringAPingBetweenFragmentsLeavesBeforeTheEchoOfTheMessage() async throws {
        var steps: [TestWebSocketServer.Step] = []
        for i in 0..<Self.rounds {
            if i.isMultiple(of: 2) {
                // All three frames in one read: the tightest race.
                steps.append(.send(Self.round(i)))
            } else {
                let bytes = Self.round(i)
                let first = 2 + "a\(i)".utf8.count
                steps += [.send(Array(bytes[..<first])), .send(Array(bytes[first..<(first + 3)])), .send(Array(bytes[(first + 3)...]))]
            }
            steps += [.receiveFrame, .receiveFrame]   // the pong and the echo, in whatever order they come
        }
        steps += [.sendFrame(WebSocketFrame(opcode: .close, payload: closePayload(1000))), .expectClose]
        let server = try await TestWebSocketServer.start(behavior: .script(steps))
        let ws = WebSocketClient.connect(to: server.url, configuration: quietConfiguration())
        var received = 0
        for await event in ws.events {
            guard case .message(let message) = event else { continue }
            received += 1
            try await ws.send(message)
        }
        await server.waitForConnectionsToEnd()
        await server.shutdown()
        var frames: [WebSocketFrame] = []
        for await f in server.clientFrames { frames.append(f) }
        #expect(received == Self.rounds)
        var expected: [WebSocketFrame] = []
        for i in 0..<Self.rounds {
            expected.append(WebSocketFrame(opcode: .pong, payload: [UInt8(i)]))
            expected.append(WebSocketFrame(opcode: .text, payload: Array("a\(i)b".utf8)))
        }
        expected.append(WebSocketFrame(opcode: .close, payload: closePayload(1000)))
        let outOfOrder = (0..<Self.rounds).filter { i in
            guard frames.count > 2 * i + 1 else { return true }
            return frames[2 * i].opcode != .pong
        }
        #expect(outOfOrder.isEmpty, "echo before pong in rounds \(outOfOrder)")
        #expect(frames.map(Self.describe) == expected.map(Self.describe))
    }
}
