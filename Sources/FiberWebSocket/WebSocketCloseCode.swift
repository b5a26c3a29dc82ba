/// Close status codes (RFC 6455 §7.4) that this library sends or checks.
public enum WebSocketCloseCode {
    /// Normal closure.
    public static let normal: UInt16 = 1000
    /// The endpoint is going away (the client shuts down).
    public static let goingAway: UInt16 = 1001
    /// The peer broke the protocol.
    public static let protocolError: UInt16 = 1002
    /// A data type the endpoint cannot accept.
    public static let unsupportedData: UInt16 = 1003
    /// No status code was present (never sent on the wire).
    public static let noStatus: UInt16 = 1005
    /// The connection ended without a close frame (never sent on the wire).
    public static let abnormal: UInt16 = 1006
    /// A text message was not valid UTF-8.
    public static let invalidPayload: UInt16 = 1007
    /// A policy violation.
    public static let policyViolation: UInt16 = 1008
    /// A frame or message exceeded the configured limit.
    public static let messageTooBig: UInt16 = 1009
    /// The server did not negotiate an extension the client required.
    public static let mandatoryExtension: UInt16 = 1010
    /// The server hit an unexpected condition.
    public static let internalError: UInt16 = 1011

    /// Whether `code` may appear in a close frame received from a peer:
    /// 1000-1003, 1007-1014 and the registered/private range 3000-4999.
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
