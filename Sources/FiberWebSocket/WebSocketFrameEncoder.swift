/// Writes frames as bytes: a pure function of the frame and the mask key.
///
/// Clients mask every frame (RFC 6455 §5.3) with a fresh key from
/// `MaskKeySource`; tests pass fixed keys to read exact bytes.
public enum WebSocketFrameEncoder {
    /// The frame's header and masked payload, in one buffer.
    ///
    /// - Parameters:
    ///   - frame: the frame to write.
    ///   - maskKey: four bytes, or nil for an unmasked (server) frame.
    public static func encode(_ frame: WebSocketFrame, maskKey: (UInt8, UInt8, UInt8, UInt8)?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(frame.payload.count + 14)
        var first = frame.opcode.rawValue
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }
        out.append(first)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        let count = frame.payload.count
        if count < 126 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(count >> 8))
            out.append(UInt8(count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        guard let key = maskKey else {
            out += frame.payload
            return out
        }
        out.append(key.0); out.append(key.1); out.append(key.2); out.append(key.3)
        let start = out.count
        out += frame.payload
        WebSocketMasking.apply(key, to: &out, from: start)
        return out
    }

    /// Splits one message into frames of at most `maxFramePayload` bytes
    /// (the first carries the opcode and `rsv1`, the rest are continuations).
    public static func fragments(opcode: WebSocketOpcode, payload: [UInt8], rsv1: Bool = false,
                                 maxFramePayload: Int) -> [WebSocketFrame] {
        let size = max(1, maxFramePayload)
        guard payload.count > size else { return [WebSocketFrame(opcode: opcode, payload: payload).with(rsv1: rsv1)] }
        var frames: [WebSocketFrame] = []
        frames.reserveCapacity(payload.count / size + 1)
        var offset = 0
        while offset < payload.count {
            let end = min(offset + size, payload.count)
            frames.append(WebSocketFrame(fin: end == payload.count, rsv1: offset == 0 && rsv1,
                                         opcode: offset == 0 ? opcode : .continuation,
                                         payload: Array(payload[offset..<end])))
            offset = end
        }
        return frames
    }
}

extension WebSocketFrame {
    func with(rsv1: Bool) -> WebSocketFrame {
        var copy = self
        copy.rsv1 = rsv1
        return copy
    }
}

/// XOR masking (RFC 6455 §5.3), eight bytes at a time.
enum WebSocketMasking {
    static func apply(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8], from start: Int, keyOffset: Int = 0) {
        let k: [UInt8] = [key.0, key.1, key.2, key.3]
        bytes.withUnsafeMutableBufferPointer { buffer in
            var i = start
            let end = buffer.count
            var phase = keyOffset & 3
            // Align the key phase to zero, then XOR whole words.
            while i < end, phase != 0 { buffer[i] ^= k[phase]; phase = (phase + 1) & 3; i += 1 }
            var word: UInt64 = 0
            for j in 0..<8 { word |= UInt64(k[j & 3]) << UInt64(8 * j) }
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while i + 8 <= end {
                let v = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                raw.storeBytes(of: v ^ word.littleEndian, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < end { buffer[i] ^= k[phase]; phase = (phase + 1) & 3; i += 1 }
        }
    }
}

/// Fresh, unpredictable mask keys from the system CSPRNG (`getrandom` behind
/// `SystemRandomNumberGenerator`), drawn 64 bits at a time.
public struct MaskKeySource: Sendable {
    private var generator: @Sendable () -> UInt32

    /// Keys from the system CSPRNG.
    public init() {
        generator = { var g = SystemRandomNumberGenerator(); return g.next() }
    }

    /// Keys from `next`, for tests that need exact bytes.
    public init(_ next: @escaping @Sendable () -> UInt32) { generator = next }

    /// The next key.
    public func next() -> (UInt8, UInt8, UInt8, UInt8) {
        let v = generator()
        return (UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v))
    }
}
