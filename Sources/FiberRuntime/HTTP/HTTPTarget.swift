import FoundationEssentials

/// Where a request goes: scheme, host, port, and the request target
/// (path and query) exactly as it is written on the request line.
///
/// One parser serves every request this runtime writes: HTTP requests
/// (`http`, `https`) and WebSocket opening handshakes (`ws`, `wss`, which
/// are HTTP/1.1 `GET`s to the same kind of target).
public struct HTTPTarget: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`; `ws` or `wss` for a WebSocket URL.
    public let scheme: String
    /// The host name or IP literal, without brackets.
    public let host: String
    /// The port, explicit or the scheme's default.
    public let port: Int
    /// Path and query, starting with `/`.
    public let pathAndQuery: String

    /// True for `https` and `wss`.
    public var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// The `Host` header value: the host, bracketed if IPv6, and the port unless it is the default.
    public var hostHeader: String {
        if isUnixSocket { return Self.unixSocketHostHeader }
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The origin (scheme, host, port) as text; redirects compare origins.
    public var origin: String { isUnixSocket ? unixSocketOrigin : "\(scheme)://\(hostHeader)" }

    /// The URL as text: the origin, then the path and query.
    public var description: String { origin + pathAndQuery }

    /// Which family of URL a parse accepts. The two differ in their schemes
    /// and in one rule: a WebSocket URL may not have a fragment (RFC 6455
    /// §3), while an HTTP URL's fragment is dropped, as it never reaches the server.
    package enum Schemes: Sendable {
        /// `http` and `https`.
        case http
        /// `ws` and `wss`, with the same default ports (80 and 443).
        case webSocket

        /// The scheme without TLS and the one with it.
        var names: (plain: String, secure: String) {
            switch self {
            case .http: ("http", "https")
            case .webSocket: ("ws", "wss")
            }
        }
    }

    /// Parses an absolute `http` or `https` URL.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` for anything else (no scheme,
    ///   another scheme, no host, a port out of range, user info, a space or
    ///   control byte in the host).
    public init(_ url: String) throws(HTTPClientError) {
        try self.init(url, schemes: .http)
    }

    /// Parses an absolute URL of the `schemes` family.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` for anything else: no scheme
    ///   or another one, no host, a port out of range, user info, a control
    ///   byte or space in the target or the host (percent-encoded too), and a
    ///   fragment in a WebSocket URL.
    package init(_ url: String, schemes: Schemes) throws(HTTPClientError) {
        if let plain = HTTPTarget.parsePlain(url, schemes: schemes) {
            self = plain
        } else if let socket = try HTTPTarget.parseUnixSocket(url, schemes: schemes) {
            self = socket
        } else {
            self = try HTTPTarget.parseWithURL(url, schemes: schemes)
        }
    }

    /// The general parser, through Foundation's `URL`.
    static func parseWithURL(_ url: String, schemes: Schemes = .http) throws(HTTPClientError) -> HTTPTarget {
        let names = schemes.names
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == names.plain || scheme == names.secure,
              let host = parsed.host(percentEncoded: false), !host.isEmpty else {
            throw .invalidURL(url)
        }
        if parsed.user != nil || parsed.password != nil { throw .invalidURL(url) }
        // The host goes into `Host` and the TLS server name as it is: a percent-encoded space,
        // line break or delimiter, decoded, would break the request's head. (An IPv6 literal
        // keeps its zone's `%`, as in `fe80::1%eth0`.)
        let isIPv6 = host.utf8.contains(UInt8(ascii: ":"))
        guard host.utf8.allSatisfy({ isHostFieldByte($0) || isIPv6 && $0 == UInt8(ascii: "%") }) else { throw .invalidURL(url) }
        if schemes == .webSocket, parsed.fragment != nil { throw .invalidURL(url) }
        let port = parsed.port ?? (scheme == names.secure ? 443 : 80)
        guard (1...65535).contains(port) else { throw .invalidURL(url) }
        var target = parsed.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = parsed.query(percentEncoded: true) { target += "?" + query }
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .invalidURL(url) }
        return HTTPTarget(scheme: scheme, host: host, port: port, pathAndQuery: target)
    }

    /// A byte a host name may hold, decoded: no control byte, space, or delimiter of a URL or
    /// a field, and no `%`, which written back in the URL would be read as an escape.
    private static func isHostFieldByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F && !"/?#@[]\\\"<>,%".utf8.contains(byte)
    }

    /// A target from its parts.
    public init(scheme: String, host: String, port: Int, pathAndQuery: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathAndQuery = pathAndQuery
    }

    /// Resolves a `Location` header value against this target (RFC 3986).
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` if the result is not an http(s) URL.
    func resolving(_ location: String) throws(HTTPClientError) -> HTTPTarget {
        guard let base = URL(string: description), let resolved = URL(string: location, relativeTo: base) else {
            throw .invalidURL(location)
        }
        return try HTTPTarget(resolved.absoluteString)
    }
}
