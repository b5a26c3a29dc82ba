/// A frame's opcode (RFC 6455 §5.2). Values 3-7 and 11-15 are reserved and
/// never produced by the decoder: it fails the connection with 1002 instead.
public enum WebSocketOpcode: UInt8, Sendable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between fragments.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One WebSocket frame, unmasked: the codec masks on encode and unmasks on decode.
public struct WebSocketFrame: Sendable, Hashable {
    /// The last frame of its message.
    public var fin: Bool
    /// RSV1: set on the first frame of a message compressed with permessage-deflate.
    public var rsv1: Bool
    /// RSV2 and RSV3, which no extension here uses.
    public var rsv2: Bool
    public var rsv3: Bool
    /// The frame's kind.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: [UInt8]

    /// A frame with the given fields; reserved bits off unless set.
    public init(fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
                opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.payload = payload
    }
}
