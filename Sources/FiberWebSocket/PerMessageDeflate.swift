/// permessage-deflate (RFC 7692) parameters: what the client offers and what
/// the server accepted.
public struct PerMessageDeflate: Sendable, Hashable {
    /// The client resets its compressor after every message.
    public var clientNoContextTakeover: Bool
    /// The server resets its compressor after every message (so we may reset our inflater).
    public var serverNoContextTakeover: Bool
    /// The client's LZ77 window (9-15); nil: offer the parameter without a value (15).
    public var clientMaxWindowBits: Int?
    /// The most the server may use (9-15); nil: not constrained (15).
    public var serverMaxWindowBits: Int?
    /// Messages shorter than this are sent uncompressed.
    public var minimumSizeToCompress: Int

    /// An offer; by default with full context takeover both ways.
    public init(clientNoContextTakeover: Bool = false, serverNoContextTakeover: Bool = false,
                clientMaxWindowBits: Int? = nil, serverMaxWindowBits: Int? = nil, minimumSizeToCompress: Int = 32) {
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
        self.minimumSizeToCompress = minimumSizeToCompress
    }

    /// The `Sec-WebSocket-Extensions` offer for this configuration.
    public var offer: String {
        var parts = ["permessage-deflate"]
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if let bits = serverMaxWindowBits { parts.append("server_max_window_bits=\(bits)") }
        parts.append(clientMaxWindowBits.map { "client_max_window_bits=\($0)" } ?? "client_max_window_bits")
        return parts.joined(separator: "; ")
    }

    /// The parameters in force, from the server's `Sec-WebSocket-Extensions` answer.
    ///
    /// - Throws: `WebSocketError` `.handshakeFailed` for an unknown, empty, repeated or
    ///   out-of-range parameter, an extension never offered, or a window larger than offered.
    public func accept(_ header: String) throws(WebSocketError) -> PerMessageDeflate? {
        var accepted: PerMessageDeflate?
        for ext in header.split(separator: ",") {
            let params = ext.split(separator: ";").map { $0.trimmingCharacters(in: " \t") }
            guard let name = params.first, !name.isEmpty else { continue }
            guard name == "permessage-deflate" else { throw Self.failure("the server accepted an extension never offered: \(name)") }
            guard accepted == nil else { throw Self.failure("permessage-deflate accepted twice") }
            var result = PerMessageDeflate(minimumSizeToCompress: minimumSizeToCompress)
            var seen = Set<String>()
            for param in params.dropFirst() {
                let pair = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t\"") }
                guard let key = pair.first, !key.isEmpty else { throw Self.failure("an empty parameter") }
                guard seen.insert(key).inserted else { throw Self.failure("parameter \(key) repeated") }
                let value = pair.count > 1 ? pair[1] : nil
                switch key {
                case "client_no_context_takeover" where value == nil: result.clientNoContextTakeover = true
                case "server_no_context_takeover" where value == nil: result.serverNoContextTakeover = true
                case "client_max_window_bits":
                    guard let bits = value.flatMap({ Int($0) }), (8...15).contains(bits) else {
                        throw Self.failure("client_max_window_bits must be 8-15")
                    }
                    result.clientMaxWindowBits = bits
                case "server_max_window_bits":
                    guard let bits = value.flatMap({ Int($0) }), (8...15).contains(bits) else {
                        throw Self.failure("server_max_window_bits must be 8-15")
                    }
                    if let offered = serverMaxWindowBits, bits > offered { throw Self.failure("server_max_window_bits above the offer") }
                    result.serverMaxWindowBits = bits
                default:
                    throw Self.failure("unknown permessage-deflate parameter \(param)")
                }
            }
            if serverNoContextTakeover, !result.serverNoContextTakeover {
                throw Self.failure("server_no_context_takeover was requested but not accepted")
            }
            if let offered = clientMaxWindowBits, (result.clientMaxWindowBits ?? 15) > offered {
                result.clientMaxWindowBits = offered
            }
            accepted = result
        }
        return accepted
    }

    private static func failure(_ message: String) -> WebSocketError {
        WebSocketError(.handshakeFailed, "Sec-WebSocket-Extensions: \(message)")
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}
