@testable import FiberWebSocket

/// The frame decoder against the frame encoder.
///
/// Input: one options byte (bit 0: decode as a server, which wants masked
/// frames; bit 1: a 200-byte frame limit), then bytes from the peer.
///
/// Rules: fed whole or in pieces, the decoder returns the same frames and
/// then the same error, if any; every frame decoded, encoded again (masked
/// for a server's decoder) and decoded, is the same frame; no frame passes
/// the size limit or breaks a rule of a single frame.
enum WebSocketFrameFuzz {
    static let target = FuzzTarget(name: "websocket-frame", run: run, seeds: WebSocketFrameSeeds.all)

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let role: WebSocketFrameDecoder.Role = first & 1 == 0 ? .client : .server
        let maxFrameSize = first & 2 == 0 ? 1 << 20 : 200
        let bytes = Array(input.dropFirst())
        let whole = decode([0..<bytes.count], of: bytes, role: role, maxFrameSize: maxFrameSize)
        let split = decode(Array(FuzzSplits(input: bytes)), of: bytes, role: role, maxFrameSize: maxFrameSize)
        FuzzCheck.require(whole.frames == split.frames, "whole gave \(whole.frames.count) frames, split \(split.frames.count)")
        FuzzCheck.require(whole.error?.kind == split.error?.kind, "whole failed with \(String(describing: whole.error)), split with \(String(describing: split.error))")
        let key: (UInt8, UInt8, UInt8, UInt8)? = role == .server ? (first, 0x5a, 0xa5, 0x3c) : nil
        for frame in whole.frames {
            FuzzCheck.require(frame.payload.count <= maxFrameSize, "a \(frame.payload.count)-byte frame past the limit")
            if frame.opcode.isControl {
                FuzzCheck.require(frame.fin && frame.payload.count <= 125, "a fragmented or long control frame passed")
            }
            let encoded = WebSocketFrameEncoder.encode(frame, maskKey: key)
            let again = decode([0..<encoded.count], of: encoded, role: role, maxFrameSize: maxFrameSize)
            FuzzCheck.require(again.frames == [frame] && again.error == nil, "encode then decode changed \(frame)")
        }
    }

    static func decode(_ reads: [Range<Int>], of bytes: [UInt8], role: WebSocketFrameDecoder.Role,
                       maxFrameSize: Int) -> (frames: [WebSocketFrame], error: WebSocketError?) {
        var decoder = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize)
        var frames: [WebSocketFrame] = []
        do {
            for range in reads {
                decoder.append(bytes[range])
                while let frame = try decoder.next() { frames.append(frame) }
            }
            FuzzCheck.require(decoder.bufferedCount <= bytes.count, "more bytes buffered than given")
            return (frames, nil)
        } catch {
            return (frames, error)
        }
    }
}

/// Frames of each opcode, masked and not, short, 16-bit and 64-bit lengths, fragmented.
enum WebSocketFrameSeeds {
    static func all() -> [[UInt8]] {
        let key: (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)
        let frames: [WebSocketFrame] = [
            WebSocketFrame(opcode: .text, payload: Array("hello".utf8)),
            WebSocketFrame(opcode: .binary, payload: Array(0...255)),
            WebSocketFrame(opcode: .ping, payload: Array("ping".utf8)),
            WebSocketFrame(opcode: .pong, payload: []),
            WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("bye".utf8)),
        ]
        var seeds: [[UInt8]] = []
        for frame in frames {
            seeds.append([0] + WebSocketFrameEncoder.encode(frame, maskKey: nil))
            seeds.append([1] + WebSocketFrameEncoder.encode(frame, maskKey: key))
        }
        let fragments = WebSocketFrameEncoder.fragments(opcode: .text, payload: Array("fragmented message".utf8), maxFramePayload: 5)
        seeds.append([0] + fragments.flatMap { WebSocketFrameEncoder.encode($0, maskKey: nil) })
        seeds.append([1] + fragments.flatMap { WebSocketFrameEncoder.encode($0, maskKey: key) })
        // A 64-bit length over a short payload (the encoder writes the shortest form, 64 bits only past 64 KiB).
        seeds.append([0, 0x82, 127, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5])
        seeds.append([1, 0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 3, 9, 9, 9, 9, 1, 2, 3])
        seeds.append([2] + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: Array(repeating: 1, count: 300)), maskKey: nil))
        return seeds
    }
}
