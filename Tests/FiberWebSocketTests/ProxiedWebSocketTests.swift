import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// `ws://` and `wss://` through an HTTP proxy's `CONNECT` tunnel (a real
/// tinyproxy) and through SOCKS5 (the Python peer), and a proxy's refusal as a
/// typed `WebSocketError`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProxiedWebSocketTests {
    static let tinyproxy = Testing.ConditionTrait.enabled(
        if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)")

    static func echo(_ url: String, _ configuration: WebSocketConfiguration) async throws -> WebSocketMessage? {
        let socket = try await WebSocketClient.open(url, configuration: configuration)
        try await socket.send(.text("through the tunnel"))
        var events = socket.events.makeAsyncIterator()
        var echoed: WebSocketMessage?
        while let event = await events.next() {
            if case .message(let message) = event { echoed = message; break }
        }
        socket.close(code: 1000, reason: "done")
        return echoed
    }

    @Test(tinyproxy) func wssAndWsGoThroughConnect() async throws {
        let proxy = try await ProxyProcess.tinyproxy("BasicAuth alice s3cret")
        let certificates = try await TestCertificates.shared()
        let secure = try await TestWebSocketServer.start(tls: .server(identity: certificates.serverIdentity()))
        let plain = try await TestWebSocketServer.start()
        var configuration = WebSocketConfiguration()
        configuration.tls.trustRoots = .pem(certificates.bytes("root.pem"))
        configuration.proxy = .url("http://alice:s3cret@127.0.0.1:\(proxy.port)")
        let secureEcho = try await Self.echo(secure.url, configuration)
        let plainEcho = try await Self.echo(plain.url, configuration)
        #expect(secureEcho == .text("through the tunnel") && plainEcho == .text("through the tunnel"))
        #expect(proxy.log.contains("CONNECT 127.0.0.1:\(secure.port)") && proxy.log.contains("CONNECT 127.0.0.1:\(plain.port)"),
                "\(proxy.log)")
        // The upgrade request inside the tunnel is the origin's: no proxy credentials in it.
        for request in plain.requests {
            #expect(!request.headers.contains(name: "Proxy-Authorization"), "\(request.headers)")
        }
        await secure.shutdown()
        await plain.shutdown()
        await proxy.stop()
    }

    @Test(tinyproxy) func aRefusedTunnelIsAProxyError() async throws {
        let proxy = try await ProxyProcess.tinyproxy("BasicAuth alice s3cret")
        let plain = try await TestWebSocketServer.start()
        var configuration = WebSocketConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
        do {
            _ = try await WebSocketClient.open(plain.url, configuration: configuration)
            Issue.record("the proxy wants credentials")
        } catch {
            #expect(error.kind == .proxy && error.proxy?.status == 407, "\(error)")
        }
        #expect(plain.requests.isEmpty)
        await plain.shutdown()
        await proxy.stop()
    }

    @Test func wsGoesThroughSOCKS5WithCredentials() async throws {
        let peer = try PythonPeer(script: "socks5_peer.py", arguments: ["--user", "bob", "--password", "hunter2"])
        defer { peer.stop() }
        let plain = try await TestWebSocketServer.start()
        var configuration = WebSocketConfiguration()
        configuration.proxy = .url("socks5h://bob:hunter2@127.0.0.1:\(peer.port)")
        let echoed = try await Self.echo("ws://localhost:\(plain.port)/", configuration)
        #expect(echoed == .text("through the tunnel"))
        await plain.shutdown()
    }
}
