/// Whether and through which proxy a client's requests go.
///
/// ```swift
/// configuration.proxy = .url("http://user:secret@proxy.internal:3128")
/// configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)
/// configuration.proxy = .environment   // HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY
/// ```
///
/// Off by default (`.none`): the environment is read only when asked for.
/// A URL given as text is checked by `HTTPClient.Configuration.validate()`.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    enum Source: Sendable, Hashable {
        case none
        case server(ProxyServer)
        case url(String)
        /// nil: the process's environment, read when the client is made.
        case environment([String: String]?)
    }

    let source: Source
    /// Hosts that go direct though a proxy is set (for `.environment`, `NO_PROXY` says).
    public var noProxy: NoProxyList

    private init(_ source: Source, noProxy: NoProxyList = NoProxyList()) {
        self.source = source
        self.noProxy = noProxy
    }

    /// Every request goes direct (the default).
    public static let none = ProxyConfiguration(.none)

    /// The proxies the process's environment names when the client is made
    /// (`ProxyEnvironment`): `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`,
    /// and their upper-case forms.
    public static let environment = ProxyConfiguration(.environment(nil))

    /// The proxies `variables` name, by the environment's rules: for tests, or a
    /// program that reads its settings elsewhere.
    public static func environment(variables: [String: String]) -> ProxyConfiguration {
        ProxyConfiguration(.environment(variables))
    }

    /// Every request through `server`, except to hosts of `noProxy`.
    public static func server(_ server: ProxyServer, noProxy: NoProxyList = NoProxyList()) -> ProxyConfiguration {
        ProxyConfiguration(.server(server), noProxy: noProxy)
    }

    /// Every request through the proxy at `url` (`http://[user:password@]host:port`,
    /// `socks5://…`, `socks5h://…`), except to hosts of `noProxy` (a `NO_PROXY` value).
    /// The URL is checked by `validate()`.
    public static func url(_ url: String, noProxy: String = "") -> ProxyConfiguration {
        ProxyConfiguration(.url(url), noProxy: NoProxyList(noProxy))
    }

    /// Every request through the HTTP proxy at `host`:`port`.
    public static func http(host: String, port: Int, credentials: ProxyCredentials? = nil) -> ProxyConfiguration {
        .server(ProxyServer(.http, host: host, port: port, credentials: credentials))
    }

    /// Every request through the SOCKS5 proxy at `host`:`port`.
    public static func socks5(host: String, port: Int, credentials: ProxyCredentials? = nil) -> ProxyConfiguration {
        .server(ProxyServer(.socks5, host: host, port: port, credentials: credentials))
    }

    /// `none`, `environment`, or the proxy without its credentials.
    public var description: String {
        switch source {
        case .none: "none"
        case .server(let server): server.description
        case .url(let text): ProxyServer.redacting(text)
        case .environment: "environment"
        }
    }

    /// Checks that the proxy can be used: a URL that parses, a host, a port in
    /// range, SOCKS5 credentials of 1 to 255 bytes; for `.environment`, every variable's URL.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` for `proxy` (or `proxy (HTTPS_PROXY)`).
    public func validate() throws(HTTPClient.ConfigurationError) {
        _ = try selector()
    }

    /// What the client consults for each request.
    package func selector() throws(HTTPClient.ConfigurationError) -> ProxySelector {
        switch source {
        case .none: return .none
        case .server(let server):
            try server.validate(setting: "proxy")
            return .server(server, noProxy)
        case .url(let text): return .server(try ProxyServer(url: text), noProxy)
        case .environment(let variables):
            let environment = if let variables { try ProxyEnvironment(variables: variables) } else { try ProxyEnvironment.current() }
            return environment.isEmpty ? .none : .environment(environment)
        }
    }
}

/// The proxy, resolved once, that each request of a client consults.
package enum ProxySelector: Sendable {
    case none
    case server(ProxyServer, NoProxyList)
    case environment(ProxyEnvironment)

    /// The proxy for a request to `target`, or nil to go direct.
    package func proxy(for target: HTTPTarget) -> ProxyServer? {
        switch self {
        case .none: nil
        case .server(let server, let noProxy): noProxy.bypasses(host: target.host, port: target.port) ? nil : server
        case .environment(let environment): environment.proxy(scheme: target.scheme, host: target.host, port: target.port)
        }
    }
}
