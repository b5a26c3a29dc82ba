import FiberRuntime

extension FiberRequest {
    /// The same request sent through `configuration` instead of the client's proxy
    /// (`Configuration.http.proxy`):
    ///
    /// ```swift
    /// let viaProxy = try await fiber.send(FiberRequest(url: url).proxy(.url("socks5://127.0.0.1:1080")))
    /// let direct = try await fiber.send(FiberRequest(url: url).proxy(.none))  // though the client has one
    /// ```
    ///
    /// `.none` sends it direct; `.environment` uses the proxies of `HTTP_PROXY`,
    /// `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` as they are when the request is sent;
    /// `.url(_:noProxy:)`, `.http`, `.socks5` name one. Connections are pooled per
    /// proxy, so the request never shares a connection with requests that go
    /// direct or through another proxy. The transport receives it as
    /// `TransportRequest.proxy`: `HTTPTransport` applies it, redirects included;
    /// another transport may ignore it.
    ///
    /// A configuration that cannot work (another scheme, no host, a port out of
    /// range; for `.environment`, a variable's URL) makes `Fiber.send` throw
    /// `FiberError.networkError` wrapping `Fiber.ConfigurationError` for the
    /// setting `FiberRequest.proxy` (`FiberRequest.proxy (HTTPS_PROXY)`) before any
    /// interceptor runs, so nothing is sent or retried. The last call wins.
    public func proxy(_ configuration: ProxyConfiguration) -> FiberRequest {
        var copy = changing { $0.with(proxy: .some(configuration)) }
        if copy.buildError.map(Self.isProxyError) == true { copy.buildError = nil }
        do throws(HTTPClient.ConfigurationError) {
            try configuration.validate()
        } catch {
            let named = HTTPClient.ConfigurationError(setting: "FiberRequest." + error.setting, reason: error.reason)
            copy.buildError = copy.buildError ?? .networkError(underlying: named)
        }
        return copy
    }

    /// The proxy set with `proxy(_:)`, if any (nil: the client's).
    public var proxy: ProxyConfiguration? { overrides?.proxy }

    /// Whether `error` is the one `proxy(_:)` records, which a later call replaces.
    private static func isProxyError(_ error: FiberError) -> Bool {
        guard case .networkError(let underlying as HTTPClient.ConfigurationError) = error else { return false }
        return underlying.setting.hasPrefix("FiberRequest.proxy")
    }
}
