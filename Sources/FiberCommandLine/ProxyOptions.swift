import ArgumentParser
import FiberRuntime

/// The proxy options every network command takes (`get`…`delete`, `bench`, `ws`).
///
/// Without them a command uses the proxies the environment names (`http_proxy`,
/// `https_proxy`, `all_proxy`, `no_proxy` and their upper-case forms), as curl
/// does; `--proxy URL` sends every request through that proxy instead, and
/// `--no-proxy` sends every request direct, whatever the environment says.
public struct ProxyOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(
        "Send every request through this proxy: http://[user:password@]host[:port], socks5://… or socks5h://… (the proxy resolves names); host:port is an HTTP proxy. Overrides the environment's proxies.",
        valueName: "url"))
    public var proxy: String?

    @Flag(help: "Ignore the proxies of http_proxy, https_proxy, all_proxy (and their upper-case forms): connect directly.")
    public var noProxy = false

    /// No options: the environment's proxies.
    public init() {}

    /// Refuses a `--proxy` URL that cannot work (another scheme, no host, a port out
    /// of range, a path) and, unless `--proxy` or `--no-proxy` is given, an environment
    /// variable whose proxy URL cannot work: ArgumentParser's usage error, exit 64.
    ///
    /// - Throws: `ValidationError` naming the option or the variable, never the password.
    public func validate() throws {
        do throws(HTTPClient.ConfigurationError) {
            try configuration.validate()
        } catch {
            // The environment's errors name their variable: `proxy (HTTPS_PROXY)`.
            let variable = error.setting.hasPrefix("proxy (") ? error.setting.dropFirst("proxy (".count).dropLast() : "proxy"
            throw ValidationError("\(proxy == nil ? "the environment's \(variable)" : "--proxy") \(error.reason)")
        }
    }

    /// What curl's `-x` takes to do the same (`CurlCommand.render`): the `--proxy`
    /// URL, `""` (no proxy) for `--no-proxy`, nil to read the environment.
    var curlValue: String? { proxy ?? (noProxy ? "" : nil) }

    /// The proxy the client is configured with: the `--proxy` URL, none for
    /// `--no-proxy`, else the environment's (read when the client is made).
    public var configuration: ProxyConfiguration {
        if let proxy { return .url(proxy) }
        return noProxy ? .none : .environment
    }
}
