@testable import FiberWebSocket
import Testing

@Suite("Message assembly")
struct AssemblerTests {
    @Test func reassemblesFragmentsWithControlFramesBetween() throws {
        var a = WebSocketMessageAssembler()
        #expect(try a.consume(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8))) == nil)
        #expect(try a.consume(WebSocketFrame(opcode: .ping, payload: [1])) == .ping([1]))
        #expect(try a.consume(WebSocketFrame(fin: false, opcode: .continuation, payload: Array("lo, ".utf8))) == nil)
        #expect(try a.consume(WebSocketFrame(opcode: .pong)) == .pong([]))
        #expect(try a.consume(WebSocketFrame(opcode: .continuation, payload: Array("world".utf8))) == .message(.text("Hello, world")))
        #expect(try a.consume(WebSocketFrame(opcode: .binary, payload: [1, 2])) == .message(.binary([1, 2])))
    }

    @Test func rejectsBrokenSequencesWith1002() {
        func fails(_ frames: [WebSocketFrame], code: UInt16 = 1002) {
            var a = WebSocketMessageAssembler()
            #expect(throws: WebSocketError.self) {
                for f in frames { _ = try a.consume(f) }
            }
            var b = WebSocketMessageAssembler()
            do { for f in frames { _ = try b.consume(f) } } catch { #expect(error.closeCode == code) }
        }
        fails([WebSocketFrame(opcode: .continuation, payload: [1])])
        fails([WebSocketFrame(fin: false, opcode: .text), WebSocketFrame(opcode: .text)])
        fails([WebSocketFrame(rsv1: true, opcode: .text)])                         // no extension negotiated
        fails([WebSocketFrame(rsv2: true, opcode: .binary)])
        fails([WebSocketFrame(rsv3: true, opcode: .ping)])
        fails([WebSocketFrame(opcode: .close, payload: [0x03])])                  // one-byte close
        fails([WebSocketFrame(opcode: .close, payload: [0x03, 0xED])])            // 1005 not allowed on the wire
        fails([WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xC0])], code: 1007)
        fails([WebSocketFrame(opcode: .text, payload: [0xFF])], code: 1007)
        fails([WebSocketFrame(fin: false, opcode: .text, payload: [0xE2, 0x82]), WebSocketFrame(opcode: .continuation)], code: 1007)
    }

    @Test func enforcesTheMessageLimitAcrossFragmentsWith1009() {
        var a = WebSocketMessageAssembler(maxMessageSize: 10)
        #expect(throws: WebSocketError.self) {
            _ = try a.consume(WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6)))
            _ = try a.consume(WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 6)))
        }
    }

    @Test(arguments: [(1000 as UInt16, true), (1003, true), (1004, false), (1006, false), (1012, true), (1016, false),
                      (2999, false), (3000, true), (4999, true), (5000, false), (999, false)])
    func closeCodesAllowedOnTheWire(code: UInt16, valid: Bool) {
        #expect(WebSocketCloseCode.isValidOnWire(code) == valid)
    }

    @Test func parsesCloseFrames() throws {
        #expect(try WebSocketMessageAssembler.parseClose([]) == .close(code: nil, reason: ""))
        #expect(try WebSocketMessageAssembler.parseClose([0x03, 0xE8] + Array("bye".utf8)) == .close(code: 1000, reason: "bye"))
    }

    @Test func inflatesCompressedMessagesAcrossFragmentsWithContextTakeover() throws {
        let compressor = DeflateCompressor(windowBits: 15, noContextTakeover: false)
        var a = WebSocketMessageAssembler(deflate: PerMessageDeflate())
        let text = String(repeating: "compress me, please. ", count: 50)
        for _ in 0..<3 {
            let wire = try compressor.compress(Array(text.utf8))
            #expect(wire.count < text.utf8.count / 4)
            let frames = WebSocketFrameEncoder.fragments(opcode: .text, payload: wire, rsv1: true, maxFramePayload: 7)
            var outputs: [WebSocketMessageAssembler.Output] = []
            for f in frames { if let o = try a.consume(f) { outputs.append(o) } }
            #expect(outputs == [.message(.text(text))])
        }
    }

    @Test func boundsInflationWith1009() throws {
        let compressor = DeflateCompressor(windowBits: 15, noContextTakeover: true)
        let bomb = try compressor.compress([UInt8](repeating: 0, count: 1_000_000))
        #expect(bomb.count < 2000)
        var a = WebSocketMessageAssembler(maxMessageSize: 100_000, deflate: PerMessageDeflate())
        #expect { _ = try a.consume(WebSocketFrame(rsv1: true, opcode: .binary, payload: bomb)) } throws: {
            ($0 as? WebSocketError)?.closeCode == 1009
        }
    }

    @Test func corruptCompressedDataIs1002() {
        var a = WebSocketMessageAssembler(deflate: PerMessageDeflate())
        #expect { _ = try a.consume(WebSocketFrame(rsv1: true, opcode: .binary, payload: [0xFF, 0xFF, 0xFF, 0xFF])) } throws: {
            ($0 as? WebSocketError)?.closeCode == 1002
        }
    }
}
