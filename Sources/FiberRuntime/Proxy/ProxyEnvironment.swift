import FoundationEssentials

/// The proxies the environment names, as curl and Go read them: a pure value
/// made from a set of variables, so that its rules are tested without touching
/// the process's environment.
///
/// - `http_proxy` for `http` and `ws`, `https_proxy` for `https` and `wss`,
///   `all_proxy` for whatever the first two leave unset; `no_proxy` lists the
///   hosts that go direct (`NoProxyList`).
/// - Each is read lower-case first, then upper-case (`HTTPS_PROXY`), as curl does.
/// - Upper-case `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set: in a CGI
///   program, a request's `Proxy:` header arrives as `HTTP_PROXY`, and a
///   client must not let the caller of the script choose its proxy (Go's rule;
///   curl ignores `HTTP_PROXY` always).
/// - An empty value is unset.
public struct ProxyEnvironment: Sendable, Hashable {
    /// The proxy for `http` and `ws` requests.
    public var http: ProxyServer?
    /// The proxy for `https` and `wss` requests.
    public var https: ProxyServer?
    /// The proxy for requests the two above leave without one.
    public var all: ProxyServer?
    /// Hosts that bypass every proxy.
    public var noProxy: NoProxyList

    /// The proxies `variables` name.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` naming the variable
    ///   (`proxy (HTTPS_PROXY)`) whose URL cannot be read, never repeating its password.
    public init(variables: [String: String]) throws(HTTPClient.ConfigurationError) {
        func value(_ lower: String, _ upper: String?) -> (name: String, text: String)? {
            if let text = variables[lower], !text.isEmpty { return (lower, text) }
            if let upper, let text = variables[upper], !text.isEmpty { return (upper, text) }
            return nil
        }
        func server(_ lower: String, _ upper: String?) throws(HTTPClient.ConfigurationError) -> ProxyServer? {
            guard let (name, text) = value(lower, upper) else { return nil }
            return try ProxyServer(url: text, setting: "proxy (\(name))")
        }
        let isCGI = variables["REQUEST_METHOD"] != nil
        http = try server("http_proxy", isCGI ? nil : "HTTP_PROXY")
        https = try server("https_proxy", "HTTPS_PROXY")
        all = try server("all_proxy", "ALL_PROXY")
        noProxy = value("no_proxy", "NO_PROXY").map { NoProxyList($0.text) } ?? NoProxyList()
    }

    /// The process's proxies, read now.
    ///
    /// - Throws: as `init(variables:)`.
    public static func current() throws(HTTPClient.ConfigurationError) -> ProxyEnvironment {
        try ProxyEnvironment(variables: ProcessInfo.processInfo.environment)
    }

    /// True when no variable names a proxy.
    public var isEmpty: Bool { http == nil && https == nil && all == nil }

    /// The proxy for a request of `scheme` to `host`:`port`, or nil to go direct.
    public func proxy(scheme: String, host: String, port: Int) -> ProxyServer? {
        let chosen = (scheme == "https" || scheme == "wss" ? https : http) ?? all
        guard let chosen, !noProxy.bypasses(host: host, port: port) else { return nil }
        return chosen
    }
}
