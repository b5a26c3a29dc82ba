/// HTTP over a Unix domain socket, named in the URL: `http+unix://` (and
/// `ws+unix://` for a WebSocket) with the socket's path percent-encoded as the
/// host, the form AsyncHTTPClient and Docker clients use:
/// `http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`.
///
/// Such a target keeps the decoded socket path in `host`. Its `Host` header is
/// `localhost` (as curl sends with `--unix-socket`): the path is no name a
/// server could route on, and some servers refuse a `%` in `Host`. Its origin
/// keeps the encoded path, so two sockets are two origins (for redirects and
/// credentials), and a redirect to a relative location stays on the socket.
extension HTTPTarget {
    /// The `Host` header value of a request over a socket named in the URL.
    static let unixSocketHostHeader = "localhost"

    /// True for `http+unix` and `ws+unix` targets, whose `host` is a socket's path.
    public var isUnixSocket: Bool { scheme.utf8.last == UInt8(ascii: "x") && scheme.hasSuffix("+unix") }  // the first test keeps http(s) cheap

    /// The path of the Unix domain socket this target names, or nil for a network target.
    public var unixSocketPath: String? { isUnixSocket ? host : nil }

    /// The origin of a socket target: its scheme and the encoded path.
    var unixSocketOrigin: String { "\(scheme)://\(PercentEncoding.encoded(host))" }

    /// Parses `http+unix://ENCODED-PATH/target` (`ws+unix` for `.webSocket`), or
    /// returns nil when `url` has another scheme.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` for an empty or undecodable socket path,
    ///   a port or user info, a control byte or space in the target, a fragment in a WebSocket URL.
    static func parseUnixSocket(_ url: String, schemes: Schemes) throws(HTTPClientError) -> HTTPTarget? {
        let scheme = schemes.names.plain + "+unix"
        let prefix = scheme + "://"
        guard url.utf8.count >= prefix.utf8.count,
              url.utf8.prefix(prefix.utf8.count).elementsEqual(prefix.utf8, by: { $0 | 0x20 == $1 | 0x20 }) else {
            return nil
        }
        let rest = url.utf8.dropFirst(prefix.utf8.count)
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        let authority = rest[..<end]
        // A ':' would be a port, '@' user info, '[' an IP literal: none belongs to an encoded path.
        guard !authority.isEmpty, !authority.contains(where: { [UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "[")].contains($0) }),
              let path = PercentEncoding.decoded(authority), !path.isEmpty, !path.utf8.contains(0) else {
            throw .invalidURL(url)
        }
        var target = Substring(rest[end...])
        if let hash = target.firstIndex(of: "#") {
            if schemes == .webSocket { throw .invalidURL(url) }
            target = target[..<hash]
        }
        if !target.hasPrefix("/") { target = "/" + target }
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .invalidURL(url) }
        return HTTPTarget(scheme: scheme, host: path, port: 80, pathAndQuery: String(target))
    }
}
