import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Requests through SOCKS5: a real dante (no authentication, names resolved by
/// the proxy, a destination its rules refuse) and a Python peer for
/// username/password and for proxies that misbehave.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SOCKSProxyInteropTests {
    @Test(.enabled(if: ProxyProcess.hasDante, "dante is not installed at /usr/sbin/danted (Scripts/setup installs dante-server)"))
    func danteCarriesHTTPAndHTTPSAndResolvesNames() async throws {
        try await withProxy({ try await .dante() }) { proxy in
            try await withOrigin { plain, pki in
                try await withOrigin(tls: true) { secure, _ in
                    try await withClient(configure: {
                        $0.tls = pki.clientTrustingRoot
                        $0.proxy = .url("socks5h://127.0.0.1:\(proxy.port)")
                    }) { client in
                        // `localhost` goes to the proxy as a name: dante resolves it.
                        for url in [plain.url("/hello"), "http://localhost:\(plain.port)/hello",
                                    secure.url("/hello"), "https://localhost:\(secure.port)/hello"] {
                            let response = try await client.execute(request(url))
                            #expect(response.status == 200 && response.text == "hello", "\(url)")
                        }
                        #expect(plain.requestCount == 2 && secure.requestCount == 2)
                    }
                }
            }
        }
    }

    @Test(.enabled(if: ProxyProcess.hasDante, "dante is not installed at /usr/sbin/danted (Scripts/setup installs dante-server)"))
    func aDestinationDantesRulesRefuseIsReplyCode2() async throws {
        try await withOrigin { plain, _ in
            try await withProxy({ try await .dante(blocking: ["127.0.0.1/32 port = \(plain.port)"]) }) { proxy in
                try await withClient(configure: { $0.proxy = .socks5(host: "127.0.0.1", port: proxy.port) }) { client in
                    let failure = await proxyFailure { _ = try await client.execute(request(plain.url("/hello"))) }
                    #expect(failure?.reason == .refused && failure?.replyCode == 2, "\(String(describing: failure))")
                    #expect(plain.requestCount == 0)
                }
            }
        }
    }

    @Test func usernameAndPasswordAreAcceptedAndNamesGoToTheProxy() async throws {
        let log = NSTemporaryDirectory() + "fiber-socks-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await withSOCKSPeer(["--user", "bob", "--password", "hunter2", "--log", log]) { peer in
            try await withOrigin { plain, pki in
                try await withOrigin(tls: true) { secure, _ in
                    try await withClient(configure: {
                        $0.tls = pki.clientTrustingRoot
                        $0.proxy = .url("socks5://bob:hunter2@127.0.0.1:\(peer.port)")
                    }) { client in
                        let r1 = try await client.execute(request("http://localhost:\(plain.port)/hello"))
                        #expect(r1.text == "hello")
                        let r2 = try await client.execute(request("https://localhost:\(secure.port)/hello"))
                        #expect(r2.text == "hello")
                        let r3 = try await client.execute(request(plain.url("/hello")))
                        #expect(r3.text == "hello")
                    }
                }
                // A name as ATYP 3 (the proxy resolves it), an IPv4 literal as ATYP 1.
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(lines.first == "3 localhost \(plain.port)")
                #expect(lines.last == "1 127.0.0.1 \(plain.port)")
            }
        }
    }

    @Test func aWrongPasswordIsAnAuthenticationFailure() async throws {
        try await withSOCKSPeer(["--user", "bob", "--password", "hunter2"]) { peer in
            try await withClient(configure: {
                $0.proxy = .socks5(host: "127.0.0.1", port: peer.port,
                                   credentials: ProxyCredentials(username: "bob", password: "not-the-one"))
            }) { client in
                var text = ""
                let failure = await proxyFailure {
                    do { _ = try await client.execute(request("http://127.0.0.1:9/")) } catch { text = "\(error)"; throw error }
                }
                #expect(failure?.reason == .authenticationRequired)
                #expect(!text.contains("not-the-one") && text.contains("socks5://127.0.0.1:\(peer.port)"), "\(text)")
            }
            // Without credentials, a proxy that wants them accepts none of the methods offered.
            try await withClient(configure: { $0.proxy = .socks5(host: "127.0.0.1", port: peer.port) }) { client in
                let failure = await proxyFailure { _ = try await client.execute(request("http://127.0.0.1:9/")) }
                #expect(failure?.reason == .authenticationRequired && failure?.detail == "it accepts no unauthenticated clients")
            }
        }
    }

    /// (behavior of the peer, reason expected, SOCKS reply code expected)
    static let misbehaviors: [(String, ProxyFailure.Reason, Int?)] = [
        ("bad-version", .malformedReply, nil),
        ("refuse", .refused, 5),
        ("close-greeting", .closed, nil),
        ("trailing", .malformedReply, nil),
        ("silent", .timedOut, nil),
    ]

    @Test(arguments: misbehaviors)
    func aMisbehavingProxyIsATypedFailure(_ case_: (String, ProxyFailure.Reason, Int?)) async throws {
        let (behavior, reason, code) = case_
        try await withSOCKSPeer(["--behavior", behavior]) { peer in
            try await withOrigin { plain, _ in
                try await withClient(configure: {
                    $0.proxy = .socks5(host: "127.0.0.1", port: peer.port)
                    $0.socket.connectTimeout = .milliseconds(500)
                }) { client in
                    let failure = await proxyFailure { _ = try await client.execute(request(plain.url("/hello"))) }
                    #expect(failure?.reason == reason && failure?.replyCode == code, "\(behavior): \(String(describing: failure))")
                    #expect(plain.requestCount == 0)
                }
            }
        }
    }

    @Test func closingDuringAuthenticationIsAnAuthenticationFailure() async throws {
        try await withSOCKSPeer(["--user", "bob", "--password", "hunter2", "--behavior", "close-auth"]) { peer in
            try await withClient(configure: { $0.proxy = .url("socks5://bob:hunter2@127.0.0.1:\(peer.port)") }) { client in
                let failure = await proxyFailure { _ = try await client.execute(request("http://127.0.0.1:9/")) }
                #expect(failure?.reason == .authenticationRequired, "\(String(describing: failure))")
            }
        }
    }
}
