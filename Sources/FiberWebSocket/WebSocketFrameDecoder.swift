/// Parses frames incrementally from bytes as they arrive, in any split.
///
/// It checks what a single frame can break (RFC 6455 §5.2, §5.5): reserved
/// opcodes, fragmented or oversized control frames, the mask bit (servers never
/// mask; clients always do), the 64-bit length's top bit, and the frame size
/// limit (1009). Rules across frames (continuations, reserved bits, UTF-8)
/// belong to `WebSocketMessageAssembler`. After an error the decoder is spent.
public struct WebSocketFrameDecoder: Sendable {
    /// Whether frames must arrive masked (a server's view) or unmasked (a client's).
    public enum Role: Sendable { case client, server }

    private let role: Role
    private let maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var index = 0

    /// - Parameters:
    ///   - role: `.client` rejects masked frames, `.server` rejects unmasked ones.
    ///   - maxFrameSize: the largest payload accepted, in bytes.
    public init(role: Role = .client, maxFrameSize: Int = 16 * 1024 * 1024) {
        self.role = role
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes received and not yet part of a returned frame.
    public var bufferedCount: Int { buffer.count - index }

    /// Adds received bytes.
    public mutating func append<C: Collection<UInt8>>(_ bytes: C) {
        if index == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            index = 0
        } else if index > 64 * 1024 {
            buffer.removeFirst(index)
            index = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` (close 1002) or
    ///   `.messageTooBig` (close 1009).
    public mutating func next() throws(WebSocketError) -> WebSocketFrame? {
        let available = buffer.count - index
        guard available >= 2 else { return nil }
        let b0 = buffer[index], b1 = buffer[index + 1]
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw .protocolError("reserved opcode \(b0 & 0x0F)")
        }
        let masked = b1 & 0x80 != 0
        switch role {
        case .client where masked: throw .protocolError("the server sent a masked frame")
        case .server where !masked: throw .protocolError("the client sent an unmasked frame")
        default: break
        }
        let fin = b0 & 0x80 != 0
        var length = UInt64(b1 & 0x7F)
        var headerSize = 2
        if opcode.isControl {
            guard fin else { throw .protocolError("fragmented control frame") }
            guard length <= 125 else { throw .protocolError("control frame longer than 125 bytes") }
        }
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[index + 2]) << 8 | UInt64(buffer[index + 3])
            headerSize = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(buffer[index + 2 + i]) }
            guard length & (1 << 63) == 0 else { throw .protocolError("64-bit payload length with the top bit set") }
            headerSize = 10
        }
        guard length <= UInt64(maxFrameSize) else {
            throw WebSocketError(.messageTooBig, "frame of \(length) bytes, limit \(maxFrameSize)",
                                 closeCode: WebSocketCloseCode.messageTooBig)
        }
        let keyStart = index + headerSize
        if masked { headerSize += 4 }
        let count = Int(length)
        guard available >= headerSize + count else {
            // Room for the whole frame now, instead of regrowing as it trickles in.
            buffer.reserveCapacity(index + headerSize + count)
            return nil
        }
        let start = index + headerSize
        var payload = Array(buffer[start..<(start + count)])
        if masked {
            let key = (buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
            WebSocketMasking.apply(key, to: &payload, from: 0)
        }
        index = start + count
        return WebSocketFrame(fin: fin, rsv1: b0 & 0x40 != 0, rsv2: b0 & 0x20 != 0, rsv3: b0 & 0x10 != 0,
                              opcode: opcode, payload: payload)
    }
}
