import FiberRuntime
import Testing

/// Proxy URLs, the configuration's checks, and credentials kept out of every text.
@Suite struct ProxyConfigurationTests {
    @Test func urlsParseIntoServers() throws {
        #expect(try ProxyServer(url: "http://proxy:3128") == ProxyServer(.http, host: "proxy", port: 3128))
        #expect(try ProxyServer(url: "HTTP://Proxy:3128/") == ProxyServer(.http, host: "proxy", port: 3128))
        #expect(try ProxyServer(url: "socks5h://[::1]:1080") == ProxyServer(.socks5, host: "::1", port: 1080))
        let withCredentials = try ProxyServer(url: "http://al%40ice:p%3Ass@127.0.0.1:8080")
        #expect(withCredentials.credentials == ProxyCredentials(username: "al@ice", password: "p:ss"))
        #expect(withCredentials.address == "127.0.0.1:8080")
    }

    @Test(arguments: ["https://proxy:443", "ftp://proxy", "http://", "http://proxy:0", "http://proxy:70000",
                      "http://proxy/path", "socks4://proxy:1080", "http://pro xy:1"])
    func badURLsAreRefused(_ url: String) {
        #expect(throws: HTTPClient.ConfigurationError.self) { _ = try ProxyServer(url: url) }
    }

    @Test func theClientRefusesABadProxyBeforeAnyRequest() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.proxy = .url("https://user:topsecret@proxy:443")
        #expect {
            try configuration.validate()
        } throws: { error in
            let text = "\(error)"
            return (error as? HTTPClient.ConfigurationError)?.setting == "proxy" && !text.contains("topsecret")
                && text.contains("***@proxy")
        }
        let client = HTTPClient(configuration: configuration)
        await #expect(throws: HTTPClient.ConfigurationError.self) {
            _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:9/"))
        }
    }

    @Test func requestOptionsAreCheckedToo() {
        var options = HTTPClient.RequestOptions()
        options.proxy = .socks5(host: "127.0.0.1", port: 1080,
                                credentials: ProxyCredentials(username: "", password: "x"))
        #expect {
            try options.validate()
        } throws: { error in
            (error as? HTTPClient.ConfigurationError)?.setting == "RequestOptions.proxy"
        }
    }

    @Test func credentialsNeverShow() throws {
        let server = try ProxyServer(url: "socks5://bob:hunter2@127.0.0.1:1080")
        let configuration = ProxyConfiguration.url("http://bob:hunter2@127.0.0.1:1080")
        for text in ["\(server)", "\(server.credentials!)", "\(configuration)", String(reflecting: server.credentials!)] {
            #expect(!text.contains("hunter2") && !text.contains("bob"), "\(text)")
        }
        #expect("\(configuration)" == "http://***@127.0.0.1:1080")
    }

    @Test func anExplicitProxyHonoursItsNoProxyList() throws {
        var configuration = HTTPClient.Configuration()
        configuration.proxy = .url("http://127.0.0.1:3128", noProxy: "localhost,10.0.0.0/8")
        try configuration.validate()
        #expect(configuration.proxy.noProxy.bypasses(host: "localhost", port: 80))
        #expect(configuration.proxy.noProxy.bypasses(host: "10.2.3.4", port: 80))
        #expect(!configuration.proxy.noProxy.bypasses(host: "example.com", port: 80))
    }
}
