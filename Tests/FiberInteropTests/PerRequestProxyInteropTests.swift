import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A proxy chosen by one request (`FiberRequest.proxy(_:)`), through tinyproxy and
/// the SOCKS5 peer: it carries that request alone, `.none` sends a request direct
/// past the client's proxy, and proxied and direct requests never share a connection.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PerRequestProxyInteropTests {
    @Test(.enabled(if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)"))
    func aRequestGoesThroughTinyproxyAndTheNextDirect() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin { origin, _ in
                let fiber = Fiber(origin.url(""))
                let viaProxy = FiberRequest(url: origin.url("/hello")).proxy(.http(host: "127.0.0.1", port: proxy.port))
                #expect(viaProxy.proxy == .http(host: "127.0.0.1", port: proxy.port))
                let proxied = try await fiber.send(viaProxy)
                #expect(proxied.statusCode == 200 && proxied.text == "hello")
                #expect(origin.lastRequest?.headers.first(name: "Via")?.contains("fiber-test-proxy") == true)
                #expect(proxy.log.contains("GET http://127.0.0.1:\(origin.port)/hello HTTP/1.1"), "\(proxy.log)")
                // The same client, the same origin, no override: direct.
                let direct = try await fiber.get("/hello")
                #expect(direct.statusCode == 200)
                #expect(origin.lastRequest?.headers.contains(name: "Via") == false)
                #expect(proxy.log.components(separatedBy: "): GET http://").count - 1 == 1, "\(proxy.log)")
            }
        }
    }

    @Test(.enabled(if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)"))
    func httpsGoesThroughTheRequestsConnectTunnelAndTheEnvironmentRuleIsReadPerRequest() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin(tls: true) { origin, pki in
                let fiber = Fiber(origin.url("")) { $0.http.tls = pki.clientTrustingRoot }
                let request = FiberRequest(url: origin.url("/hello"))
                    .proxy(.environment(variables: ["https_proxy": "127.0.0.1:\(proxy.port)"]))
                let response = try await fiber.send(request)
                #expect(response.statusCode == 200 && response.text == "hello")
                #expect(proxy.log.contains("CONNECT 127.0.0.1:\(origin.port)"), "\(proxy.log)")
                // Its NO_PROXY sends the same origin direct.
                let bypassed = FiberRequest(url: origin.url("/hello"))
                    .proxy(.environment(variables: ["https_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "127.0.0.1"]))
                let bypassedResponse = try await fiber.send(bypassed)
                #expect(bypassedResponse.statusCode == 200)
                #expect(proxy.log.components(separatedBy: "): CONNECT 127.0.0.1:\(origin.port)").count - 1 == 1, "\(proxy.log)")
                // One connection through the tunnel, one direct.
                #expect(origin.connectionCount == 2 && origin.requestCount == 2)
            }
        }
    }

    /// A proxy set for the client is skipped by a request that says `.none`; the client's
    /// proxy here refuses connections, so a request that used it would fail.
    @Test func noneSendsARequestDirectPastTheClientsProxy() async throws {
        let refusing = RefusingPort()
        try await withOrigin { origin, _ in
            let fiber = Fiber(origin.url("")) { $0.http.proxy = .http(host: "127.0.0.1", port: refusing.port) }
            let direct = try await fiber.send(FiberRequest(url: origin.url("/hello")).proxy(.none))
            #expect(direct.statusCode == 200 && direct.text == "hello")
            do {
                _ = try await fiber.get("/hello")
                Issue.record("expected the client's proxy to refuse")
            } catch let error as FiberError {
                let failure = try #require(error.proxyFailure, "\(error)")
                #expect(failure.reason == .unreachable && failure.proxy == "http://127.0.0.1:\(refusing.port)")
            }
            #expect(origin.requestCount == 1)
        }
    }

    @Test func aRequestGoesThroughTheSOCKSPeerWithCredentials() async throws {
        let log = NSTemporaryDirectory() + "fiber-socks-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await withSOCKSPeer(["--user", "bob", "--password", "hunter2", "--log", log]) { peer in
            try await withOrigin { origin, _ in
                let fiber = Fiber(origin.url(""))
                let request = FiberRequest(url: "http://localhost:\(origin.port)/hello")
                    .proxy(.url("socks5h://bob:hunter2@127.0.0.1:\(peer.port)"))
                let response = try await fiber.send(request)
                #expect(response.statusCode == 200 && response.text == "hello")
                // The name went to the proxy (address type 3), which resolved it.
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(lines == ["3 localhost \(origin.port)"])
            }
        }
    }

    /// Two requests through the SOCKS5 peer and two direct, alternating, to one origin,
    /// on one event loop (one pool): the peer opens exactly one tunnel (the proxied
    /// requests share it), and the origin sees two connections, one for each way,
    /// never a request on the other's.
    @Test func proxiedAndDirectRequestsToOneOriginNeverShareAConnection() async throws {
        let log = NSTemporaryDirectory() + "fiber-socks-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let group = EventLoopGroup(loopCount: 1, name: "per-request-proxy")
        let transport = HTTPTransport(eventLoopGroup: group)
        do {
            try await Self.alternateProxiedAndDirect(through: transport, log: log)
        } catch {
            await transport.shutdown()
            try? await group.shutdown()
            throw error
        }
        await transport.shutdown()
        try await group.shutdown()
    }

    private static func alternateProxiedAndDirect(through transport: HTTPTransport, log: String) async throws {
        try await withSOCKSPeer(["--log", log]) { peer in
            try await withOrigin { origin, _ in
                let fiber = Fiber(origin.url("")) { $0.transport = transport }
                let proxied = FiberRequest(url: origin.url("/hello")).proxy(.socks5(host: "127.0.0.1", port: peer.port))
                var ways: [String] = []
                for _ in 1...2 {
                    let viaProxy = try await fiber.send(proxied)
                    let direct = try await fiber.get("/hello")
                    #expect(viaProxy.statusCode == 200 && direct.statusCode == 200)
                    ways += ["proxied", "direct"]
                }
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(lines == ["1 127.0.0.1 \(origin.port)"], "one tunnel, for the proxied requests only")
                let requests = origin.recordedRequests()
                #expect(requests.count == 4 && origin.connectionCount == 2)
                let byWay = Dictionary(grouping: zip(ways, requests.map(\.connectionNumber)), by: \.0).mapValues { Set($0.map(\.1)) }
                #expect(byWay["proxied"]?.count == 1 && byWay["direct"]?.count == 1)
                #expect(byWay["proxied"] != byWay["direct"])
            }
        }
    }
}
