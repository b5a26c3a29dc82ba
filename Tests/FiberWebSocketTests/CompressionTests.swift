import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Testing

/// Autobahn categories 12 and 13: permessage-deflate negotiated with the
/// loopback server, messages compressed both ways, each parameter.
@Suite("permessage-deflate", .timeLimit(.minutes(1)))
struct CompressionTests {
    static let offers: [PerMessageDeflate] = [
        PerMessageDeflate(),
        PerMessageDeflate(clientNoContextTakeover: true),
        PerMessageDeflate(serverNoContextTakeover: true),
        PerMessageDeflate(clientNoContextTakeover: true, serverNoContextTakeover: true, minimumSizeToCompress: 0),
    ]

    @Test(arguments: offers)
    func echoesCompressedMessagesBothWays(offer: PerMessageDeflate) async throws {
        let server = try await TestWebSocketServer.start(behavior: .echo, handshake: .init(deflate: true))
        var configuration = quietConfiguration()
        configuration.compression = offer
        configuration.maxOutgoingFrameSize = 4096
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        let negotiated = try #require(ws.compression)
        #expect(negotiated.clientNoContextTakeover == offer.clientNoContextTakeover)
        #expect(negotiated.serverNoContextTakeover == offer.serverNoContextTakeover)
        let sent: [WebSocketMessage] = [
            .text(String(repeating: "the same words again and again; ", count: 400)),
            .text(String(repeating: "the same words again and again; ", count: 400)),
            .binary((0..<50_000).map { UInt8($0 % 251) }),
            .text("short"),
            .text(""),
        ]
        for m in sent { try await ws.send(m) }
        var received: [WebSocketMessage] = []
        for await event in ws.events {
            if case .message(let m) = event { received.append(m) }
            if received.count == sent.count { ws.close() }
        }
        #expect(received == sent)
        await server.waitForConnectionsToEnd()
        await server.shutdown()
        var frames: [WebSocketFrame] = []
        for await f in server.clientFrames { frames.append(f) }
        let first = try #require(frames.first)
        #expect(first.rsv1 && first.payload.count < 12_800 / 4)
        // Context takeover shrinks the repeated message; without it, it compresses alike.
        let starts = frames.filter { $0.opcode != .continuation && $0.opcode != .close }
        if !offer.clientNoContextTakeover { #expect(starts[1].payload.count < starts[0].payload.count) }
        else { #expect(starts[1].payload.count == starts[0].payload.count) }
    }

    @Test func anAnswerWithUnofferedParametersFailsTheHandshake() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(extensionsOverride: "permessage-deflate; mystery_param"))
        var configuration = quietConfiguration()
        configuration.compression = PerMessageDeflate()
        await #expect { _ = try await WebSocketClient.open(server.url, configuration: configuration) } throws: {
            ($0 as? WebSocketError)?.kind == .handshakeFailed
        }
        await server.shutdown()
    }

    @Test func compressedDataWithoutNegotiationIs1002AndCorruptDataToo() async throws {
        let (events, frames) = try await runScript([.send([0xC1, 0x02, 0xFF, 0xFF]), .expectClose])
        #expect(ending(events).code == 1002 && sentCloseCode(frames) == 1002)
        var configuration = quietConfiguration()
        configuration.compression = PerMessageDeflate()
        let (events2, frames2) = try await runScript([.send([0xC2, 0x04, 0xFF, 0xFF, 0xFF, 0xFF]), .expectClose],
                                                     handshake: .init(deflate: true), configuration: configuration)
        #expect(ending(events2).code == 1002 && sentCloseCode(frames2) == 1002)
    }

    /// RFC 7692 §7.2.3.4: a sender may end a message with a final block (BFINAL), which ends
    /// its deflate stream; the next message starts a new one, and inflates as such.
    @Test func aMessageEndingItsDeflateStreamIsFollowedByAFreshOne() async throws {
        func compressed(_ text: String, final: Bool) throws -> [UInt8] {
            let stream = try ZlibStream(deflating: .raw(windowBits: 15))
            var out: [UInt8] = []
            try stream.process(Array(text.utf8), flush: final ? .finish : .sync, into: &out)
            if !final { out.removeLast(4) }  // the sync flush's 00 00 FF FF
            return WebSocketFrameEncoder.encode(WebSocketFrame(rsv1: true, opcode: .text, payload: out), maskKey: nil)
        }
        var configuration = quietConfiguration()
        configuration.compression = PerMessageDeflate()
        let (events, _) = try await runScript([
            .send(try compressed("the first message ends its stream", final: true)),
            .send(try compressed("the second starts another", final: false)),
            .sendFrame(WebSocketFrame(opcode: .close, payload: closePayload(1000))), .expectClose,
        ], handshake: .init(deflate: true), configuration: configuration)
        #expect(messages(events) == [.text("the first message ends its stream"), .text("the second starts another")])
        #expect(ending(events).code == 1000)
    }

    @Test func aDecompressionBombIsStoppedAt1009() async throws {
        let bomb = try DeflateCompressor(windowBits: 15, noContextTakeover: true).compress([UInt8](repeating: 0, count: 4 << 20))
        var configuration = quietConfiguration()
        configuration.compression = PerMessageDeflate()
        configuration.maxMessageSize = 1 << 20
        let wire = WebSocketFrameEncoder.encode(WebSocketFrame(rsv1: true, opcode: .binary, payload: bomb), maskKey: nil)
        let (events, frames) = try await runScript([.send(wire), .expectClose], handshake: .init(deflate: true), configuration: configuration)
        #expect(ending(events).error?.kind == .messageTooBig)
        #expect(sentCloseCode(frames) == 1009)
    }
}
