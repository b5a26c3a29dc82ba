import FiberTesting
@testable import FiberWebSocket
import Testing

/// The Autobahn client categories, against a scripted server that sends the
/// exact bytes each case needs: what the client delivers, and the close code
/// it sends (1000 after a clean close from the server, 1002/1007/1009 when it fails the connection).
@Suite("Conformance (Autobahn categories)", .timeLimit(.minutes(1)))
struct ConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [TestWebSocketServer.Step]
        let messages: [WebSocketMessage]
        let closeCode: UInt16
        var testDescription: String { name }
    }

    static let close1000 = frame(0x88, closePayload(1000))
    static func text(_ s: String) -> [UInt8] { frame(0x81, Array(s.utf8)) }
    static func bin(_ n: Int) -> [UInt8] { WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload(n)), maskKey: nil) }
    static func payload(_ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7) } }

    /// A clean case: the server sends `bytes`, then closes with 1000.
    static func ok(_ name: String, _ bytes: [UInt8], _ messages: [WebSocketMessage]) -> Case {
        Case(name: name, steps: [.send(bytes + close1000), .expectClose], messages: messages, closeCode: 1000)
    }

    /// A failing case: the client must close with `code` (and deliver `messages` first).
    static func fail(_ name: String, _ bytes: [UInt8], _ code: UInt16, _ messages: [WebSocketMessage] = []) -> Case {
        Case(name: name, steps: [.send(bytes), .expectClose], messages: messages, closeCode: code)
    }

    static let framing: [Case] = [0, 125, 126, 127, 128, 65535, 65536].map { n in
        ok("1.x binary of \(n) bytes", bin(n), [.binary(payload(n))])
    } + [
        ok("1.1.1 empty text", frame(0x81, []), [.text("")]),
        ok("1.1.2 text 125 bytes", frame(0x81, [UInt8](repeating: 0x2A, count: 125)), [.text(String(repeating: "*", count: 125))]),
    ]

    static let pingPong: [Case] = [
        ok("2.1 ping, empty", frame(0x89, []), []),
        ok("2.3 ping, binary payload", frame(0x89, [0, 0xFF, 0xFE]), []),
        ok("2.4 ping, 125 bytes", frame(0x89, [UInt8](repeating: 0xFE, count: 125)), []),
        fail("2.5 ping, 126 bytes", [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0xFE, count: 126), 1002),
        ok("2.6 unsolicited pong", frame(0x8A, [1, 2]), []),
        ok("2.7 unsolicited pong, then ping", frame(0x8A, []) + frame(0x89, [9]), []),
        ok("2.10 ten pings", Array((0..<10).map { frame(0x89, [UInt8($0)]) }.joined()), []),
    ]

    static let reservedBits: [Case] = [
        fail("3.1 RSV2 on text", frame(0xA1, Array("x".utf8)), 1002),
        fail("3.2 RSV1 on text after a good message", text("ok") + frame(0xC1, Array("x".utf8)), 1002, [.text("ok")]),
        fail("3.3 RSV3 on binary", frame(0x92, [1]), 1002),
        fail("3.4 RSV1+RSV2 on ping", frame(0xE9, []), 1002),
        fail("3.5 all RSV bits on close", frame(0xF8, closePayload(1000)), 1002),
    ]

    static let opcodes: [Case] = [3, 4, 5, 6, 7].map { op in
        fail("4.1 reserved data opcode \(op)", frame(0x80 | UInt8(op), []), 1002)
    } + [11, 12, 13, 14, 15].map { op in
        fail("4.2 reserved control opcode \(op)", text("before") + frame(0x80 | UInt8(op), []), 1002, [.text("before")])
    }

    static let fragmentation: [Case] = [
        fail("5.1 fragmented ping", frame(0x09, [1]) + frame(0x80, [2]), 1002),
        fail("5.2 fragmented pong", frame(0x0A, [1]) + frame(0x80, [2]), 1002),
        ok("5.3 text in two fragments", frame(0x01, Array("frag".utf8)) + frame(0x80, Array("ment".utf8)), [.text("fragment")]),
        ok("5.6 ping between fragments", frame(0x01, Array("a".utf8)) + frame(0x89, [7]) + frame(0x80, Array("b".utf8)), [.text("ab")]),
        ok("5.9 pong between fragments", frame(0x02, [1]) + frame(0x8A, []) + frame(0x00, [2]) + frame(0x80, [3]), [.binary([1, 2, 3])]),
        fail("5.9 continuation without a message", frame(0x80, Array("x".utf8)), 1002),
        fail("5.15 new text during a fragmented message", frame(0x01, Array("a".utf8)) + frame(0x81, Array("b".utf8)), 1002),
        ok("5.19 empty fragments", frame(0x01, []) + frame(0x00, []) + frame(0x80, []), [.text("")]),
    ]

    static let utf8: [Case] = [
        ok("6.2 valid text split inside a character",
           frame(0x01, [0xCE, 0xBA, 0xE1]) + frame(0x00, [0xBD]) + frame(0x80, [0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]), [.text("κόσμε")]),
        fail("6.3 invalid in one frame", frame(0x81, [0xCE, 0xBA, 0xED, 0xA0, 0x80]), 1007),
        fail("6.4 invalid, detected before the message ends (fail fast)", frame(0x01, [0xCE, 0xBA, 0xF4, 0x90]), 1007),
        fail("6.x ends inside a character", frame(0x81, [0xE2, 0x82]), 1007),
        fail("6.x overlong", frame(0x81, [0xC0, 0xAF]), 1007),
        fail("6.x surrogate split across fragments", frame(0x01, [0xED]) + frame(0x80, [0xA0, 0x80]), 1007),
    ]

    static let closing: [Case] = [
        Case(name: "7.1 close without payload", steps: [.send(frame(0x88, [])), .expectClose], messages: [], closeCode: 1005),
        Case(name: "7.1.5 data after close is ignored", steps: [.send(close1000 + text("late")), .expectClose], messages: [], closeCode: 1000),
        fail("7.3 one-byte close payload", frame(0x88, [0x03]), 1002),
        fail("7.5 invalid UTF-8 close reason", frame(0x88, closePayload(1000) + [0xC0, 0x80]), 1007),
    ] + [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999].map { (code: UInt16) in
        Case(name: "7.7 valid close code \(code)", steps: [.send(frame(0x88, closePayload(code, "r"))), .expectClose], messages: [], closeCode: code)
    } + [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999, 5000, 65535].map { (code: UInt16) in
        fail("7.9 invalid close code \(code)", frame(0x88, closePayload(code)), 1002)
    }

    static let limits: [Case] = [
        ok("9.1 1 MiB text", WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: [UInt8](repeating: 0x2A, count: 1 << 20)), maskKey: nil),
           [.text(String(repeating: "*", count: 1 << 20))]),
        ok("9.2 4 MiB binary in 64 KiB fragments", Array(WebSocketFrameEncoder.fragments(opcode: .binary, payload: payload(4 << 20), maxFramePayload: 65536)
            .map { WebSocketFrameEncoder.encode($0, maskKey: nil) }.joined()), [.binary(payload(4 << 20))]),
        fail("9.x frame over the 16 MiB limit, announced", [0x82, 0x7F, 0, 0, 0, 0, 0x01, 0, 0, 1], 1009),
    ]

    @Test(arguments: framing + pingPong + reservedBits + opcodes + fragmentation + utf8 + closing + limits)
    func autobahnCase(_ c: Case) async throws {
        let (events, frames) = try await runScript(c.steps)
        #expect(events.first == .connected)
        #expect(messages(events) == c.messages)
        #expect(sentCloseCode(frames) == c.closeCode)
        guard case .disconnected(let code, _)? = events.last else { Issue.record("no disconnection"); return }
        #expect(code == c.closeCode)
        // Every ping answered with its payload, in order, and nothing sent after the close.
        let pings = c.steps.flatMap { step -> [[UInt8]] in
            guard case .send(let bytes) = step else { return [] }
            var d = WebSocketFrameDecoder(role: .client, maxFrameSize: 64 << 20)
            d.append(bytes)
            var out: [[UInt8]] = []
            while let f = try? d.next() {
                if f.opcode == .close || f.rsv1 || f.rsv2 || f.rsv3 { break }
                if f.opcode == .ping { out.append(f.payload) }
            }
            return out
        }
        #expect(frames.filter { $0.opcode == .pong }.map(\.payload) == pings)
        #expect(frames.last?.opcode == .close)
    }

    @Test func oversizedFramesAndMessagesFailWith1009UnderAConfiguredLimit() async throws {
        var configuration = quietConfiguration()
        configuration.maxFrameSize = 1000
        configuration.maxMessageSize = 1500
        let (events, frames) = try await runScript([.send(Self.bin(1001)), .expectClose], configuration: configuration)
        #expect(ending(events).error?.kind == .messageTooBig)
        #expect(sentCloseCode(frames) == 1009)
        let fragmented = Array(WebSocketFrameEncoder.fragments(opcode: .binary, payload: Self.payload(2000), maxFramePayload: 900)
            .map { WebSocketFrameEncoder.encode($0, maskKey: nil) }.joined())
        let (events2, frames2) = try await runScript([.send(fragmented), .expectClose], configuration: configuration)
        #expect(ending(events2).code == 1009 && sentCloseCode(frames2) == 1009)
    }

    @Test func aMaskedFrameFromTheServerIs1002() async throws {
        let masked = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)), maskKey: (1, 2, 3, 4))
        let (events, frames) = try await runScript([.send(masked), .expectClose])
        #expect(ending(events).error?.kind == .protocolViolation)
        #expect(sentCloseCode(frames) == 1002)
    }
}
