@testable import FiberWebSocket
import Testing

@Suite("Frame codec")
struct CodecTests {
    static let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

    @Test func encodesTheRFCMaskedHelloExample() {
        // RFC 6455 §5.7: a single-frame masked text message "Hello".
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskKey: Self.key)
        #expect(bytes == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func encodesUnmaskedAndTheThreeLengthForms() {
        #expect(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskKey: nil)
                == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        let medium = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 256)), maskKey: nil)
        #expect(Array(medium.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        let large = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 65536)), maskKey: nil)
        #expect(Array(large.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test(arguments: [0, 1, 7, 125, 126, 127, 65535, 65536, 100_003])
    func roundTripsThroughTheServerDecoderInEverySplit(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let wire = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload), maskKey: Self.key)
        for chunkSize in [1, 3, 1000, wire.count] where size < 70_000 || chunkSize >= 1000 {
            var decoder = WebSocketFrameDecoder(role: .server)
            var frames: [WebSocketFrame] = []
            var offset = 0
            while offset < wire.count {
                decoder.append(wire[offset..<min(offset + chunkSize, wire.count)])
                offset += chunkSize
                while let frame = try decoder.next() { frames.append(frame) }
            }
            #expect(frames == [WebSocketFrame(opcode: .binary, payload: payload)])
        }
    }

    @Test func masksWithFreshKeysFromTheSource() {
        let source = MaskKeySource()
        let keys = (0..<64).map { _ in source.next() }.map { [$0.0, $0.1, $0.2, $0.3] }
        #expect(Set(keys).count > 60)
        let fixed = MaskKeySource { 0x01020304 }
        #expect(fixed.next() == (1, 2, 3, 4))
    }

    @Test func fragmentsOnSendWithTheConfiguredFrameSize() {
        let frames = WebSocketFrameEncoder.fragments(opcode: .text, payload: Array("abcdefghij".utf8), rsv1: true, maxFramePayload: 4)
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.fin) == [false, false, true])
        #expect(frames.map(\.rsv1) == [true, false, false])
        #expect(frames.map { String(decoding: $0.payload, as: UTF8.self) } == ["abcd", "efgh", "ij"])
        #expect(WebSocketFrameEncoder.fragments(opcode: .binary, payload: [], maxFramePayload: 4).count == 1)
    }

    @Test(arguments: [
        ([0x83, 0x00], "reserved opcode"),                // opcode 3
        ([0x8B, 0x00], "reserved opcode"),                // opcode 11
        ([0x09, 0x00], "fragmented control"),             // ping without FIN
        ([0x89, 0x7E, 0x00, 0x7E], "longer than 125"),    // 126-byte ping
        ([0x81, 0x81, 1, 2, 3, 4, 0], "masked"),          // a masked frame from the server
        ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], "top bit"),
    ] as [([UInt8], String)])
    func rejectsMalformedFramesWith1002(bytes: [UInt8], reason: String) {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(bytes)
        #expect {
            _ = try decoder.next()
        } throws: { error in
            let e = error as? WebSocketError
            return e?.kind == .protocolViolation && e?.closeCode == 1002 && e?.message.contains(reason) == true
        }
    }

    @Test func rejectsFramesOverTheLimitWith1009BeforeTheirPayloadArrives() {
        var decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: 1000)
        decoder.append([0x82, 0x7E, 0x03, 0xE9])   // 1001 bytes announced, none sent
        #expect { _ = try decoder.next() } throws: { ($0 as? WebSocketError)?.closeCode == 1009 }
    }

    @Test func serverRoleRequiresMasks() {
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append([0x81, 0x00])
        #expect { _ = try decoder.next() } throws: { ($0 as? WebSocketError)?.closeCode == 1002 }
    }
}
