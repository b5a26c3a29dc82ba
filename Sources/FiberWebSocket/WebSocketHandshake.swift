import FiberRuntime
import Foundation

/// The opening handshake (RFC 6455 §4.1): the upgrade request's bytes, and
/// the checks of the server's `101` answer. Pure: the key comes in.
public struct WebSocketHandshake: Sendable {
    /// The `Sec-WebSocket-Key`: 16 random bytes, base64.
    public let key: String
    /// The subprotocols offered, in preference order.
    public let subprotocols: [String]
    /// The permessage-deflate offer, if any.
    public let deflate: PerMessageDeflate?

    /// What the server agreed to.
    public struct Negotiated: Sendable, Hashable {
        /// The subprotocol the server chose, if any.
        public var subprotocol: String?
        /// The permessage-deflate parameters in force, if the server accepted compression.
        public var deflate: PerMessageDeflate?
    }

    /// A handshake with `key` (see `randomKey()`).
    public init(key: String, subprotocols: [String] = [], deflate: PerMessageDeflate? = nil) {
        self.key = key
        self.subprotocols = subprotocols
        self.deflate = deflate
    }

    /// A fresh key from the system CSPRNG.
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with: base64(SHA-1(key + GUID)).
    public static func acceptValue(for key: String) -> String {
        Data(SHA1Digest.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The header fields the handshake writes itself or never sends, in lower
    /// case: the request line's `Host`, the upgrade's own fields, the offers
    /// (subprotocols and extensions are given as parameters, so that the answer
    /// can be checked against them) and body framing (the upgrade has no body).
    /// `request` refuses a caller's value for any of them; `Fiber.webSocket`
    /// leaves them out of what its interceptors produced.
    public static let ownedFields: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol",
        "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

    /// The GET request that asks for the upgrade, written by the runtime's one
    /// request-head writer (`HTTP1RequestSerializer`), so that what may be
    /// sent is decided by the same rules as for every HTTP request: the
    /// handshake's own fields first, then `headers` in their order.
    ///
    /// - Throws: `WebSocketError` `.invalidHeader` for a header with a control byte
    ///   in its value or a name that is not a token, one the handshake owns
    ///   (`ownedFields`), a subprotocol that is not a token, or a key or host
    ///   with a control byte; `.invalidURL` for a path with a control byte or space.
    public func request(path: String, hostHeader: String, headers: HTTPHeaders) throws(WebSocketError) -> [UInt8] {
        if let field = headers.first(where: { Self.ownedFields.contains($0.name.lowercased()) }) {
            throw WebSocketError(.invalidHeader, "header \(field.name.debugDescription) is set by the handshake")
        }
        // Subprotocols are tokens (RFC 6455 §4.1): the header-value rule alone would
        // let a space or comma through, changing what the server reads as offered.
        if let subprotocol = subprotocols.first(where: { !HTTPHeaders.isToken($0) }) {
            throw WebSocketError(.invalidHeader, "subprotocol \(subprotocol.debugDescription) is not a token")
        }
        var fields = HTTPHeaders()
        fields.append(name: "Upgrade", value: "websocket")
        fields.append(name: "Connection", value: "Upgrade")
        fields.append(name: "Sec-WebSocket-Key", value: key)
        fields.append(name: "Sec-WebSocket-Version", value: "13")
        if !subprotocols.isEmpty { fields.append(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")) }
        if let deflate { fields.append(name: "Sec-WebSocket-Extensions", value: deflate.offer) }
        for field in headers { fields.append(name: field.name, value: field.value) }
        do {
            return try HTTP1RequestSerializer.head(method: "GET", requestTarget: path, host: hostHeader, headers: fields,
                                                   bodyLength: nil, hasBody: false).bytes
        } catch {
            throw WebSocketError(error.kind == .invalidURL ? .invalidURL : .invalidHeader,
                                 "the upgrade request may not be sent: \(error.detail ?? "\(error.kind)")")
        }
    }

    /// Checks a `101` answer's status and headers and returns what was negotiated.
    ///
    /// - Throws: `WebSocketError` `.handshakeFailed` for a wrong `Upgrade`,
    ///   `Connection` or `Sec-WebSocket-Accept`, a subprotocol not offered, or
    ///   an extension not offered or malformed.
    public func validate(status: Int, headers: HTTPHeaders) throws(WebSocketError) -> Negotiated {
        guard status == 101 else { throw WebSocketError(.upgradeFailed, "status \(status)", status: status) }
        guard headers.values(name: "Upgrade").contains(where: { $0.lowercased() == "websocket" }) else {
            throw WebSocketError(.handshakeFailed, "missing Upgrade: websocket")
        }
        guard headers.containsToken("upgrade", in: "Connection") else {
            throw WebSocketError(.handshakeFailed, "missing Connection: Upgrade")
        }
        guard headers.values(name: "Sec-WebSocket-Accept") == [Self.acceptValue(for: key)] else {
            throw WebSocketError(.handshakeFailed, "Sec-WebSocket-Accept does not match the key")
        }
        var negotiated = Negotiated()
        let protocols = headers.values(name: "Sec-WebSocket-Protocol")
        if !protocols.isEmpty {
            guard protocols.count == 1, subprotocols.contains(protocols[0].trimmingCharacters(in: " \t")) else {
                throw WebSocketError(.handshakeFailed, "the server chose a subprotocol never offered: \(protocols.joined(separator: ", "))")
            }
            negotiated.subprotocol = protocols[0].trimmingCharacters(in: " \t")
        }
        let extensions = headers.values(name: "Sec-WebSocket-Extensions").joined(separator: ", ")
        if !extensions.isEmpty {
            guard let deflate else {
                throw WebSocketError(.handshakeFailed, "the server accepted extensions never offered: \(extensions)")
            }
            negotiated.deflate = try deflate.accept(extensions)
        }
        return negotiated
    }
}
