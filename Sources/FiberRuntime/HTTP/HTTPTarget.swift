import FoundationEssentials

/// Where a request goes: scheme, host, port, and the request target
/// (path and query) exactly as it is written on the request line.
public struct HTTPTarget: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or IP literal, without brackets.
    public let host: String
    /// The port, explicit or the scheme's default.
    public let port: Int
    /// Path and query, starting with `/`.
    public let pathAndQuery: String

    /// True for `https`.
    public var isSecure: Bool { scheme == "https" }

    /// The `Host` header value: the host, bracketed if IPv6, and the port unless it is the default.
    public var hostHeader: String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The origin (scheme, host, port) as text; redirects compare origins.
    public var origin: String { "\(scheme)://\(hostHeader)" }

    public var description: String { origin + pathAndQuery }

    /// Parses an absolute `http` or `https` URL.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` for anything else (no scheme,
    ///   another scheme, no host, a port out of range, user info).
    public init(_ url: String) throws(HTTPClientError) {
        if let plain = HTTPTarget.parsePlain(url) {
            self = plain
        } else {
            self = try HTTPTarget.parseWithURL(url)
        }
    }

    /// The general parser, through Foundation's `URL`.
    static func parseWithURL(_ url: String) throws(HTTPClientError) -> HTTPTarget {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https",
              let host = parsed.host(percentEncoded: false), !host.isEmpty else {
            throw .invalidURL(url)
        }
        if parsed.user != nil || parsed.password != nil { throw .invalidURL(url) }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw .invalidURL(url) }
        var target = parsed.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = parsed.query(percentEncoded: true) { target += "?" + query }
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .invalidURL(url) }
        return HTTPTarget(scheme: scheme, host: host, port: port, pathAndQuery: target)
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
