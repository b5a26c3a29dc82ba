import Foundation

/// A whole WebSocket message: text (valid UTF-8) or binary.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// A text message holding `value` encoded as JSON.
    ///
    /// - Throws: `WebSocketError` `.coding` when `value` cannot be encoded.
    public static func json<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) throws(WebSocketError) -> WebSocketMessage {
        do {
            let data = try encoder.encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw WebSocketError(.coding, "cannot encode \(T.self) as JSON: \(error)")
        }
    }

    /// Decodes the message's JSON (text or binary) as `T`.
    ///
    /// - Throws: `WebSocketError` `.coding` when it is not `T` in JSON.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws(WebSocketError) -> T {
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw WebSocketError(.coding, "cannot decode \(T.self) from the message: \(error)")
        }
    }

    /// The message's bytes (the UTF-8 of a text message).
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let bytes): Data(bytes)
        }
    }

    /// The payload size in bytes.
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }
}
