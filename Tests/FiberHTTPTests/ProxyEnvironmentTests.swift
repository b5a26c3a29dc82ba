import FiberRuntime
import Testing

/// Which proxy the environment's variables choose, and which hosts `NO_PROXY` sends direct.
@Suite struct ProxyEnvironmentTests {
    static func proxy(_ variables: [String: String], _ url: String) throws -> String? {
        let target = try HTTPTarget(url)
        let environment = try ProxyEnvironment(variables: variables)
        return environment.proxy(scheme: target.scheme, host: target.host, port: target.port)?.description
    }

    @Test func eachSchemeHasItsVariableAndAllProxyFillsTheRest() throws {
        let both = ["http_proxy": "http://h:1", "https_proxy": "http://s:2", "all_proxy": "socks5://a:3"]
        #expect(try Self.proxy(both, "http://example.com/") == "http://h:1")
        #expect(try Self.proxy(both, "https://example.com/") == "http://s:2")
        #expect(try Self.proxy(["all_proxy": "socks5h://a:3"], "https://example.com/") == "socks5://a:3")
        #expect(try Self.proxy(["https_proxy": "http://s:2"], "http://example.com/") == nil)
        #expect(try Self.proxy([:], "http://example.com/") == nil)
    }

    @Test func webSocketSchemesFollowTheirHTTPCounterparts() throws {
        let environment = try ProxyEnvironment(variables: ["http_proxy": "h:1", "https_proxy": "s:2"])
        #expect(environment.proxy(scheme: "ws", host: "example.com", port: 80)?.host == "h")
        #expect(environment.proxy(scheme: "wss", host: "example.com", port: 443)?.host == "s")
    }

    @Test func lowerCaseWinsOverUpperCase() throws {
        #expect(try Self.proxy(["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1"], "https://x/") == "http://lower:1")
        #expect(try Self.proxy(["HTTPS_PROXY": "http://upper:1"], "https://x/") == "http://upper:1")
        #expect(try Self.proxy(["ALL_PROXY": "http://upper:1"], "https://x/") == "http://upper:1")
        // An empty value is unset, so the other case is read.
        #expect(try Self.proxy(["https_proxy": "", "HTTPS_PROXY": "http://upper:1"], "https://x/") == "http://upper:1")
    }

    @Test func upperCaseHTTPProxyIsIgnoredInACGIProgram() throws {
        #expect(try Self.proxy(["HTTP_PROXY": "http://upper:1"], "http://x/") == "http://upper:1")
        #expect(try Self.proxy(["HTTP_PROXY": "http://evil:1", "REQUEST_METHOD": "GET"], "http://x/") == nil)
        #expect(try Self.proxy(["http_proxy": "http://lower:1", "REQUEST_METHOD": "GET"], "http://x/") == "http://lower:1")
    }

    @Test func proxyURLsWithoutSchemeAreHTTPAndPortsDefault() throws {
        let environment = try ProxyEnvironment(variables: ["http_proxy": "proxy.internal:3128", "https_proxy": "http://p",
                                                           "all_proxy": "socks5://s"])
        #expect(environment.http == ProxyServer(.http, host: "proxy.internal", port: 3128))
        #expect(environment.https == ProxyServer(.http, host: "p", port: 80))
        #expect(environment.all == ProxyServer(.socks5, host: "s", port: 1080))
    }

    @Test func aBadVariableNamesItselfAndNotItsPassword() {
        #expect {
            _ = try ProxyEnvironment(variables: ["HTTPS_PROXY": "ftp://user:hunter2@proxy:21"])
        } throws: { error in
            let error = error as? HTTPClient.ConfigurationError
            return error?.setting == "proxy (HTTPS_PROXY)" && !"\(error!)".contains("hunter2") && "\(error!)".contains("ftp")
        }
    }

    /// `NO_PROXY` entries against hosts: (no_proxy, url, goes direct).
    static let noProxyMatrix: [(String, String, Bool)] = [
        ("example.com", "http://example.com/", true),
        ("example.com", "http://api.example.com/", true),
        ("example.com", "http://notexample.com/", false),
        ("example.com", "http://example.com.evil.net/", false),
        (".example.com", "http://example.com/", true),
        (".example.com", "http://a.b.example.com/", true),
        ("*.example.com", "http://a.example.com/", true),
        ("EXAMPLE.com", "http://Api.Example.COM/", true),
        ("example.com.", "http://example.com/", true),
        ("*", "http://anything.at.all/", true),
        ("other.org, example.com", "http://example.com/", true),
        ("other.org example.com", "http://x.example.com/", true),
        ("127.0.0.1", "http://127.0.0.1:8080/", true),
        ("127.0.0.1", "http://127.0.0.2/", false),
        ("127.0.0.1", "http://localhost/", false),
        ("localhost", "http://localhost:9/", true),
        ("10.0.0.0/8", "http://10.1.2.3/", true),
        ("10.0.0.0/8", "http://11.1.2.3/", false),
        ("192.168.1.0/24", "http://192.168.1.77/", true),
        ("192.168.1.0/24", "http://192.168.2.1/", false),
        ("::1", "http://[::1]:8080/", true),
        ("[::1]", "http://[::1]/", true),
        ("fd00::/8", "http://[fd12::1]/", true),
        ("fd00::/8", "http://[fe80::1]/", false),
        ("10.0.0.0/8", "http://[::1]/", false),
        ("example.com:8080", "http://example.com:8080/", true),
        ("example.com:8080", "http://example.com/", false),
        ("[::1]:8080", "http://[::1]:8080/", true),
        ("[::1]:8080", "http://[::1]:9090/", false),
        ("127.0.0.1:443", "https://127.0.0.1/", true),
        ("", "http://example.com/", false),
        ("*.", "http://example.com/", false),
        ("10.0.0.0/99", "http://10.0.0.1/", false),
    ]

    @Test(arguments: noProxyMatrix)
    func noProxyEntries(_ entry: (String, String, Bool)) throws {
        let (noProxy, url, direct) = entry
        let chosen = try Self.proxy(["http_proxy": "http://p:1", "https_proxy": "http://p:1", "no_proxy": noProxy], url)
        #expect((chosen == nil) == direct, "NO_PROXY=\(noProxy) \(url)")
    }

    @Test func upperCaseNoProxyIsRead() throws {
        #expect(try Self.proxy(["http_proxy": "http://p:1", "NO_PROXY": "example.com"], "http://example.com/") == nil)
        #expect(try Self.proxy(["http_proxy": "http://p:1", "no_proxy": "other.org", "NO_PROXY": "example.com"],
                               "http://example.com/") == "http://p:1")
    }
}
