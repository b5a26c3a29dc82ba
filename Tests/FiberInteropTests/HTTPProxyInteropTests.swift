import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Requests through a real tinyproxy: `http` forwarded in absolute form,
/// `https` through `CONNECT`, Basic authentication accepted and refused, a
/// refused tunnel, and credentials that never reach the origin.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)"))
struct HTTPProxyInteropTests {
    @Test func httpGoesToTheProxyInAbsoluteForm() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin { origin, _ in
                try await withClient(configure: { $0.proxy = .http(host: "127.0.0.1", port: proxy.port) }) { client in
                    let response = try await client.execute(request(origin.url("/hello")))
                    #expect(response.status == 200 && response.text == "hello")
                    let seen = try #require(origin.lastRequest)
                    #expect(seen.headers.first(name: "Via")?.contains("fiber-test-proxy") == true, "\(seen.headers)")
                    #expect(seen.target == "/hello")
                    #expect(proxy.log.contains("GET http://127.0.0.1:\(origin.port)/hello HTTP/1.1"), "\(proxy.log)")
                }
            }
        }
    }

    @Test func httpsGoesThroughAConnectTunnel() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin(tls: true) { origin, pki in
                try await withClient(configure: {
                    $0.tls = pki.clientTrustingRoot
                    $0.proxy = .url("http://127.0.0.1:\(proxy.port)")
                }) { client in
                    for _ in 1...2 {
                        // A Proxy-Authorization of the caller's own is dropped: inside the tunnel it would reach the origin.
                        let response = try await client.execute(request(origin.url("/hello"),
                                                                        headers: ["Proxy-Authorization": "Basic c2VjcmV0"]))
                        #expect(response.status == 200 && response.text == "hello")
                    }
                    // One tunnel, kept alive like any connection; the origin never sees the proxy's headers.
                    #expect(origin.connectionCount == 1)
                    let seen = try #require(origin.lastRequest)
                    #expect(!seen.headers.contains(name: "Via") && !seen.headers.contains(name: "Proxy-Authorization"))
                    #expect(proxy.log.contains("CONNECT 127.0.0.1:\(origin.port)"), "\(proxy.log)")
                }
            }
        }
    }

    @Test func basicAuthenticationIsAcceptedAndNeverReachesTheOrigin() async throws {
        try await withProxy({ try await .tinyproxy("BasicAuth alice s3cret") }) { proxy in
            try await withOrigin { plain, pki in
                try await withOrigin(tls: true) { secure, _ in
                    try await withClient(configure: {
                        $0.tls = pki.clientTrustingRoot
                        $0.proxy = .url("http://alice:s3cret@127.0.0.1:\(proxy.port)")
                    }) { client in
                        let r1 = try await client.execute(request(plain.url("/hello")))
                        #expect(r1.status == 200)
                        let r2 = try await client.execute(request(secure.url("/hello")))
                        #expect(r2.status == 200)
                        for origin in [plain, secure] {
                            let seen = try #require(origin.lastRequest)
                            #expect(!seen.headers.contains(name: "Proxy-Authorization"), "\(seen.headers)")
                        }
                    }
                }
            }
        }
    }

    @Test func missingOrWrongCredentialsAreA407ProxyFailure() async throws {
        try await withProxy({ try await .tinyproxy("BasicAuth alice s3cret") }) { proxy in
            try await withOrigin(tls: true) { secure, pki in
                for credentials in [nil, ProxyCredentials(username: "alice", password: "wrong-guess")] {
                    try await withClient(configure: {
                        $0.tls = pki.clientTrustingRoot
                        $0.proxy = .http(host: "127.0.0.1", port: proxy.port, credentials: credentials)
                    }) { client in
                        var thrown: HTTPClientError?
                        let failure = await proxyFailure {
                            do { _ = try await client.execute(request(secure.url("/hello"))) } catch let error as HTTPClientError {
                                thrown = error
                                throw error
                            }
                        }
                        // tinyproxy answers wrong credentials with 401, none with 407.
                        #expect(failure?.reason == .authenticationRequired && failure?.status == (credentials == nil ? 407 : 401))
                        #expect(failure?.proxy == "http://127.0.0.1:\(proxy.port)")
                        let text = "\(thrown.map { "\($0)" } ?? "") \(thrown?.localizedDescription ?? "")"
                        #expect(text.contains("127.0.0.1:\(proxy.port)") && !text.contains("wrong-guess"), "\(text)")
                    }
                }
                // Plain http is forwarded: the proxy's 407 answer is the same failure, not a response.
                try await withOrigin { plain, _ in
                    try await withClient(configure: { $0.proxy = .http(host: "127.0.0.1", port: proxy.port) }) { client in
                        let failure = await proxyFailure { _ = try await client.execute(request(plain.url("/hello"))) }
                        #expect(failure?.reason == .authenticationRequired && failure?.status == 407)
                        #expect(plain.requestCount == 0)
                    }
                }
            }
        }
    }

    @Test func aForbiddenTunnelIsRefusedWithItsStatus() async throws {
        // tinyproxy tunnels only to the ports ConnectPort lists.
        try await withProxy({ try await .tinyproxy("ConnectPort 9") }) { proxy in
            try await withOrigin(tls: true) { secure, pki in
                try await withClient(configure: {
                    $0.tls = pki.clientTrustingRoot
                    $0.proxy = .http(host: "127.0.0.1", port: proxy.port)
                }) { client in
                    let failure = await proxyFailure { _ = try await client.execute(request(secure.url("/hello"))) }
                    #expect(failure?.reason == .refused && failure?.status == 403, "\(String(describing: failure))")
                    #expect(failure?.destination == "127.0.0.1:\(secure.port)")
                    #expect(secure.connectionCount == 0)
                }
            }
        }
    }

    @Test func anUnreachableProxyIsAProxyFailureWithTheSocketsError() async throws {
        let refusing = RefusingPort()
        try await withClient(configure: { $0.proxy = .http(host: "127.0.0.1", port: refusing.port) }) { client in
            let failure = await proxyFailure { _ = try await client.execute(request("http://127.0.0.1:9/")) }
            #expect(failure?.reason == .unreachable && failure?.transport?.kind == .connectionRefused)
        }
    }

    @Test func aProxyThatAcceptsAndSaysNothingTimesOut() async throws {
        // Listens, and never answers what it is sent.
        let silent = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        try await withClient(configure: {
            $0.proxy = .http(host: "127.0.0.1", port: silent.port)
            $0.socket.connectTimeout = .milliseconds(300)
        }) { client in
            let failure = await proxyFailure { _ = try await client.execute(request("https://127.0.0.1:9/")) }
            #expect(failure?.reason == .timedOut && failure?.destination == "127.0.0.1:9", "\(String(describing: failure))")
        }
        await silent.close()
    }

    @Test func proxiedAndDirectConnectionsNeverMix() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin { origin, _ in
                try await withClient(configure: { $0.proxy = .http(host: "127.0.0.1", port: proxy.port) }) { client in
                    var goDirect = HTTPClient.RequestOptions()
                    goDirect.proxy = ProxyConfiguration.none
                    for _ in 1...2 {
                        _ = try await client.execute(request(origin.url("/hello")))
                        _ = try await client.execute(request(origin.url("/hello")), options: goDirect)
                    }
                    let requests = origin.recordedRequests()
                    let proxied = requests.filter { $0.headers.contains(name: "Via") }
                    let direct = requests.filter { !$0.headers.contains(name: "Via") }
                    #expect(requests.count == 4 && proxied.count == 2)
                    // The direct requests share one connection, which no proxied request used
                    // (tinyproxy opens its own to the origin for each of its clients' requests).
                    #expect(Set(direct.map(\.connectionNumber)).count == 1)
                    #expect(Set(direct.map(\.connectionNumber)).isDisjoint(with: proxied.map(\.connectionNumber)))
                }
            }
        }
    }

    @Test func aRedirectToAnOriginThatGoesDirectCarriesNoProxyCredentials() async throws {
        try await withProxy({ try await .tinyproxy("BasicAuth alice s3cret") }) { proxy in
            try await withOrigin { first, _ in
                try await withOrigin { second, _ in
                    // The second origin is reached as localhost, which NO_PROXY sends direct.
                    first.route("/go", respond: .redirect(to: "http://localhost:\(second.port)/hello"))
                    try await withClient(configure: {
                        $0.proxy = .url("http://alice:s3cret@127.0.0.1:\(proxy.port)", noProxy: "localhost")
                    }) { client in
                        let response = try await client.execute(request(first.url("/go")))
                        #expect(response.status == 200 && response.text == "hello")
                        #expect(first.lastRequest?.headers.contains(name: "Via") == true)
                        let seen = try #require(second.lastRequest)
                        #expect(!seen.headers.contains(name: "Proxy-Authorization") && !seen.headers.contains(name: "Via"))
                    }
                }
            }
        }
    }
}
