/// Turns decoded frames into messages and control events (RFC 6455 §5.4-5.5,
/// RFC 7692 §6): reassembles fragments, lets control frames through between
/// them, validates reserved bits, continuations and UTF-8 (failing fast, as
/// fragments arrive), inflates compressed messages, and enforces the message
/// size limit. A pure value apart from its zlib stream; after an error it is spent.
public struct WebSocketMessageAssembler {
    /// What a frame amounted to.
    public enum Output: Sendable, Hashable {
        /// A whole data message.
        case message(WebSocketMessage)
        /// A ping, to be answered with a pong carrying `payload`.
        case ping([UInt8])
        /// A pong.
        case pong([UInt8])
        /// A close frame; `code` is nil when it had no payload (1005).
        case close(code: UInt16?, reason: String)
    }

    private let maxMessageSize: Int
    private let decompressor: DeflateDecompressor?
    private var opcode: WebSocketOpcode?
    private var compressed = false
    private var buffer: [UInt8] = []
    private var utf8 = UTF8Validator()

    /// - Parameters:
    ///   - maxMessageSize: the largest message (after inflation) accepted.
    ///   - deflate: the negotiated permessage-deflate parameters, if any.
    public init(maxMessageSize: Int = 16 * 1024 * 1024, deflate: PerMessageDeflate? = nil) {
        self.maxMessageSize = maxMessageSize
        self.decompressor = deflate.map { DeflateDecompressor(noContextTakeover: $0.serverNoContextTakeover) }
    }

    /// True while a fragmented message is incomplete.
    public var isMidMessage: Bool { opcode != nil }

    /// Consumes one frame; returns what it completed, if anything.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` (1002), `.invalidUTF8`
    ///   (1007) or `.messageTooBig` (1009).
    public mutating func consume(_ frame: WebSocketFrame) throws(WebSocketError) -> Output? {
        if frame.rsv2 || frame.rsv3 { throw .protocolError("reserved bits RSV2/RSV3 set") }
        if frame.opcode.isControl {
            if frame.rsv1 { throw .protocolError("RSV1 set on a control frame") }
            return try control(frame)
        }
        if frame.opcode == .continuation {
            guard opcode != nil else { throw .protocolError("continuation frame without a message to continue") }
            if frame.rsv1 { throw .protocolError("RSV1 set on a continuation frame") }
        } else {
            guard opcode == nil else { throw .protocolError("new data frame inside a fragmented message") }
            if frame.rsv1, decompressor == nil { throw .protocolError("RSV1 set without permessage-deflate") }
            opcode = frame.opcode
            compressed = frame.rsv1
            utf8 = UTF8Validator()
        }
        let start = buffer.count
        if compressed, let decompressor {
            try decompressor.inflate(frame.payload, last: frame.fin, into: &buffer, limit: maxMessageSize)
        } else {
            guard buffer.count + frame.payload.count <= maxMessageSize else {
                throw WebSocketError(.messageTooBig, "message passes \(maxMessageSize) bytes",
                                     closeCode: WebSocketCloseCode.messageTooBig)
            }
            if buffer.isEmpty, frame.fin { buffer = frame.payload } else { buffer += frame.payload }
        }
        if opcode == .text {
            guard utf8.validate(buffer[start...]) else {
                throw WebSocketError(.invalidUTF8, "text message is not valid UTF-8", closeCode: WebSocketCloseCode.invalidPayload)
            }
        }
        guard frame.fin else { return nil }
        let kind = opcode
        opcode = nil
        let payload = buffer
        buffer = []
        if kind == .text {
            guard utf8.isComplete else {
                throw WebSocketError(.invalidUTF8, "text message ends inside a character", closeCode: WebSocketCloseCode.invalidPayload)
            }
            return .message(.text(String(decoding: payload, as: UTF8.self)))
        }
        return .message(.binary(payload))
    }

    private func control(_ frame: WebSocketFrame) throws(WebSocketError) -> Output {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        default: return try Self.parseClose(frame.payload)
        }
    }

    /// A close frame's code and reason.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` for a one-byte payload or
    ///   a code not allowed on the wire, `.invalidUTF8` for a bad reason.
    static func parseClose(_ payload: [UInt8]) throws(WebSocketError) -> Output {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("close frame with a one-byte payload") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnWire(code) else { throw .protocolError("close code \(code) is not allowed") }
        let reason = payload[2...]
        guard UTF8Validator.isValid(reason) else {
            throw WebSocketError(.invalidUTF8, "close reason is not valid UTF-8", closeCode: WebSocketCloseCode.invalidPayload)
        }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}
