import Foundation

/// A parsed `ws://` or `wss://` URL.
struct WebSocketURL: Sendable, Hashable {
    var isSecure: Bool
    var host: String
    var port: Int
    var pathAndQuery: String

    /// `host[:port]` for the Host header, the port only when not the default.
    var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? h : "\(h):\(port)"
    }

    /// - Throws: `WebSocketError` `.invalidURL` for another scheme, no host, a
    ///   bad port, user info, or a fragment.
    init(_ string: String) throws(WebSocketError) {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
              scheme == "ws" || scheme == "wss",
              let host = url.host(percentEncoded: false), !host.isEmpty,
              url.user == nil, url.password == nil, url.fragment == nil else {
            throw WebSocketError(.invalidURL, "not a ws:// or wss:// URL: \(string)")
        }
        isSecure = scheme == "wss"
        port = url.port ?? (isSecure ? 443 : 80)
        guard (1...65535).contains(port) else { throw WebSocketError(.invalidURL, "port out of range: \(string)") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw WebSocketError(.invalidURL, "invalid characters in the path: \(string)")
        }
        pathAndQuery = path
    }
}
