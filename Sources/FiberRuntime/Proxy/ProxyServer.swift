import FoundationEssentials

/// One proxy: its protocol, where it listens and, optionally, credentials.
///
/// `description` names it as `http://host:port` or `socks5://host:port`,
/// never with its credentials, so it can appear in errors and logs.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// How the client talks to the proxy.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: `http` requests in absolute form, everything else through `CONNECT`.
        case http
        /// A SOCKS5 proxy (RFC 1928), which resolves host names itself.
        case socks5
    }

    /// The proxy's protocol.
    public var kind: Kind
    /// Its host name or IP literal (without brackets).
    public var host: String
    /// Its port.
    public var port: Int
    /// Credentials sent to the proxy, if any.
    public var credentials: ProxyCredentials?

    /// A proxy from its parts.
    public init(_ kind: Kind, host: String, port: Int, credentials: ProxyCredentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy URL: `http://[user:password@]host[:port]` (port 80 by default;
    /// 1080 for SOCKS), `socks5://…` or `socks5h://…` (both resolve names at the
    /// proxy), or `host:port` alone, which is an HTTP proxy (as curl reads it).
    /// User name and password are percent-decoded.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` for `setting` when the URL has
    ///   another scheme (`https` proxies are not supported), no host, a path, or
    ///   a port out of range. The reason never repeats the password.
    public init(url text: String, setting: String = "proxy") throws(HTTPClient.ConfigurationError) {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        let shown = ProxyServer.redacting(withScheme)
        func refuse(_ reason: String) -> HTTPClient.ConfigurationError {
            HTTPClient.ConfigurationError(setting: setting, reason: "\(reason) (\(shown))")
        }
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw refuse("is not a proxy URL")
        }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case "https": throw refuse("uses https: TLS to the proxy is not supported, use http:// (CONNECT still encrypts https requests end to end)")
        default: throw refuse("has the scheme \(scheme): only http, socks5 and socks5h are supported")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else { throw refuse("has no host") }
        let path = url.path(percentEncoded: true)
        guard path.isEmpty || path == "/", url.query == nil else { throw refuse("has a path or query") }
        let port = url.port ?? (kind == .http ? 80 : 1080)
        guard (1...65535).contains(port) else { throw refuse("has a port out of range") }
        var credentials: ProxyCredentials?
        if let user = url.user(percentEncoded: false) {
            credentials = ProxyCredentials(username: user, password: url.password(percentEncoded: false) ?? "")
        }
        self.init(kind, host: host.lowercased(), port: port, credentials: credentials)
        try validate(setting: setting)
    }

    /// `host:port`, the host bracketed if IPv6: how errors name the proxy.
    public var address: String { Self.authority(host: host, port: port) }

    /// `host:port`, an IPv6 host in brackets: a `CONNECT` target, a destination in messages.
    static func authority(host: String, port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// `http://host:port` or `socks5://host:port`, without credentials.
    public var description: String { "\(kind.rawValue)://\(address)" }

    /// True when `scheme`'s requests go to this proxy as they are (absolute
    /// form, over a connection to the proxy) rather than through a tunnel:
    /// plain `http` through an HTTP proxy.
    func forwards(scheme: String) -> Bool { kind == .http && scheme == "http" }

    /// Checks the host, port and, for SOCKS5, that credentials fit RFC 1929 (1 to 255 bytes each).
    ///
    /// - Throws: `HTTPClient.ConfigurationError` for `setting`.
    func validate(setting: String) throws(HTTPClient.ConfigurationError) {
        typealias Check = HTTPClient.ConfigurationError
        try Check.require(!host.isEmpty && !host.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }), setting,
                          "has an empty host or one with a control byte or space")
        try Check.require((1...65535).contains(port), setting, "has a port out of range (\(port))")
        if kind == .socks5, let credentials {
            try Check.require((1...255).contains(credentials.username.utf8.count), setting,
                              "has a SOCKS5 user name that is not 1 to 255 bytes")
            try Check.require((1...255).contains(credentials.password.utf8.count), setting,
                              "has a SOCKS5 password that is not 1 to 255 bytes")
        }
        if kind == .socks5 { try Check.require(host.utf8.count <= 255, setting, "has a host longer than 255 bytes") }
    }

    /// `text` with any `user:password@` replaced by `***@`, for messages.
    static func redacting(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + "***" + String(rest[at...])
    }
}

extension ProxyServer {
    /// `headers` for a request of `scheme` through this proxy. Forwarded: with
    /// `Proxy-Authorization` from the credentials, unless the caller set one.
    /// Through a tunnel: without any `Proxy-Authorization`, which would reach the origin.
    func requestHeaders(_ headers: HTTPHeaders, scheme: String) -> HTTPHeaders {
        var headers = headers
        if !forwards(scheme: scheme) {
            headers.remove(name: "Proxy-Authorization")
        } else if let credentials, !headers.contains(name: "Proxy-Authorization") {
            headers.append(name: "Proxy-Authorization", value: credentials.basicAuthorization)
        }
        return headers
    }
}
