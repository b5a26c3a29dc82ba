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

    /// The GET request that asks for the upgrade.
    ///
    /// - Throws: `WebSocketError` `.invalidHeader` for a header with a control byte
    ///   in its value or a name that is not a token, one the handshake owns
    ///   (`ownedFields`), or a subprotocol that is not a token.
    public func request(path: String, hostHeader: String, headers: HTTPHeaders) throws(WebSocketError) -> [UInt8] {
        if let field = headers.firstInvalidField() {
            throw WebSocketError(.invalidHeader, "header \(field.name.debugDescription) may not be sent")
        }
        // Subprotocols are tokens (RFC 6455 §4.1): anything else, a CR LF above all, would be
        // written into the request's head as it is.
        if let subprotocol = subprotocols.first(where: { !HTTPHeaders.isToken($0) }) {
            throw WebSocketError(.invalidHeader, "subprotocol \(subprotocol.debugDescription) is not a token")
        }
        var out = "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        out += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !subprotocols.isEmpty { out += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n" }
        if let deflate { out += "Sec-WebSocket-Extensions: \(deflate.offer)\r\n" }
        for field in headers {
            guard !Self.ownedFields.contains(field.name.lowercased()) else {
                throw WebSocketError(.invalidHeader, "header \(field.name) is set by the handshake")
            }
            out += "\(field.name): \(field.value)\r\n"
        }
        out += "\r\n"
        return Array(out.utf8)
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
