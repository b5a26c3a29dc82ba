import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Foundation
import Testing

/// WebSocket URLs are parsed by the runtime's one URL parser (`HTTPTarget`),
/// and give the WebSocket code what it needs: TLS or not, the host to connect
/// to (an IPv6 literal without brackets), the port, the request target, the
/// `Host` value; and every refusal as `WebSocketError` `.invalidURL`.
@Suite("WebSocket URLs")
struct WebSocketURLTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var url: String
        var isSecure: Bool
        var host: String
        var port: Int
        var target: String
        var hostHeader: String
        var testDescription: String { url }
    }

    static let parsed: [Expected] = [
        .init(url: "ws://example.com", isSecure: false, host: "example.com", port: 80, target: "/", hostHeader: "example.com"),
        .init(url: "wss://example.com", isSecure: true, host: "example.com", port: 443, target: "/", hostHeader: "example.com"),
        .init(url: "ws://example.com:443/x", isSecure: false, host: "example.com", port: 443, target: "/x", hostHeader: "example.com:443"),
        .init(url: "wss://example.com:80/x", isSecure: true, host: "example.com", port: 80, target: "/x", hostHeader: "example.com:80"),
        .init(url: "ws://h:0080/", isSecure: false, host: "h", port: 80, target: "/", hostHeader: "h"),
        .init(url: "ws://[::1]:9001/chat?room=1", isSecure: false, host: "::1", port: 9001, target: "/chat?room=1", hostHeader: "[::1]:9001"),
        .init(url: "wss://[2001:db8::1]/", isSecure: true, host: "2001:db8::1", port: 443, target: "/", hostHeader: "[2001:db8::1]"),
        .init(url: "ws://h?x=1", isSecure: false, host: "h", port: 80, target: "/?x=1", hostHeader: "h"),
        .init(url: "ws://h/a%20b?q=%2F%3F&r", isSecure: false, host: "h", port: 80, target: "/a%20b?q=%2F%3F&r", hostHeader: "h"),
        .init(url: "WSS://h:8443/Path", isSecure: true, host: "h", port: 8443, target: "/Path", hostHeader: "h:8443"),
        .init(url: "ws://127.0.0.1:65535", isSecure: false, host: "127.0.0.1", port: 65535, target: "/", hostHeader: "127.0.0.1:65535"),
    ]

    @Test(arguments: parsed)
    func parses(expected: Expected) throws {
        let target = try HTTPTarget(webSocketURL: expected.url)
        #expect(target.isSecure == expected.isSecure)
        #expect(target.host == expected.host)
        #expect(target.port == expected.port)
        #expect(target.pathAndQuery == expected.target)
        #expect(target.hostHeader == expected.hostHeader)
        // The same parse as the runtime's, scheme included.
        #expect(target == (try HTTPTarget(expected.url, schemes: .webSocket)))
        #expect(target.scheme == (expected.isSecure ? "wss" : "ws"))
    }

    static let refused = [
        "http://h/", "https://h/", "ftp://h/", "ws://", "ws:///path", "ws://u@h/", "ws://u:p@h/", "ws://:p@h/",
        "ws://h/#f", "ws://h/a?b#", "ws://h:0/", "ws://h:65536/", "ws://h:99999999/", "ws://h:-1/", "ws://h:port/",
        "ws://[::1/", "/relative", "not a url", "",
    ]

    @Test(arguments: refused)
    func refuses(url: String) {
        #expect { try HTTPTarget(webSocketURL: url) } throws: {
            guard let error = $0 as? WebSocketError else { return false }
            return error.kind == .invalidURL && error.message.hasSuffix(url)
        }
    }

    /// The rules the WebSocket client applied with its own parser before it
    /// used the runtime's, kept here as the reference the shared parser must
    /// agree with on every URL below (accepted or refused, and what it gives).
    static func formerRules(_ string: String) -> (isSecure: Bool, host: String, port: Int, target: String)? {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              let host = url.host(percentEncoded: false), !host.isEmpty,
              url.user == nil, url.password == nil, url.fragment == nil else { return nil }
        let port = url.port ?? (scheme == "wss" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        return (scheme == "wss", host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port, target)
    }

    @Test(arguments: parsed.map(\.url) + refused + [
        "ws://h/a b", "ws://h/é?q=ü", "ws://h/%zz", "ws://h:/", "wss://H.Example.COM/", "ws://h//double//slash",
        "wss://[fe80::1%25eth0]:8443/x", "ws://h/p;param/q@r:s!$&'()*+,=", "ws://h/a?b?c", "ws://sub-1.h-2.example/",
    ])
    func agreesWithTheRulesTheClientHadBefore(url: String) {
        let former = Self.formerRules(url)
        let shared = try? HTTPTarget(webSocketURL: url)
        #expect((former == nil) == (shared == nil), "\(url): before \(String(describing: former)), now \(String(describing: shared))")
        if let former, let shared {
            #expect(former.isSecure == shared.isSecure && former.host == shared.host)
            #expect(former.port == shared.port && former.target == shared.pathAndQuery)
        }
    }

    /// Over loopback: the upgrade goes to the parsed host and port and asks for the parsed target.
    @Test func theUpgradeAsksForThePathAndQuery() async throws {
        let server = try await TestWebSocketServer.start()
        let url = "ws://127.0.0.1:\(server.port)/chat?room=a%20b&x=%2F"
        let ws = try await WebSocketClient.open(url)
        let request = try #require(server.requests.last)
        #expect(request.target == "/chat?room=a%20b&x=%2F")
        #expect(request.headers.first(name: "Host") == "127.0.0.1:\(server.port)")
        ws.close()
        _ = await allEvents(ws)
        await server.shutdown()
    }

    /// Over IPv6 loopback: the client connects to the literal without brackets
    /// and writes it with them in `Host`. (A bare listener: it records the
    /// upgrade request and closes, so the handshake itself then fails.)
    @Test func anIPv6LiteralIsConnectedToAndNamedInHost() async throws {
        let listener = try await SocketListener.listen(host: "::1", port: 0)
        let received = Task {
            let stream = try await listener.accept()
            var head: [UInt8] = []
            while !head.ends(with: Array("\r\n\r\n".utf8)), let chunk = try await stream.read() { head += chunk }
            await stream.close()
            return String(decoding: head, as: UTF8.self)
        }
        let url = "ws://[::1]:\(listener.port)/v6?q=1"
        // Generous: under the sanitizers, with every suite running, the shared loops can lag for seconds.
        var configuration = WebSocketConfiguration()
        configuration.connectTimeout = .seconds(60)
        await #expect { _ = try await WebSocketClient.open(url, configuration: configuration) } throws: {
            ($0 as? WebSocketError)?.kind == .handshakeFailed
        }
        let head = try await received.value
        #expect(head.hasPrefix("GET /v6?q=1 HTTP/1.1\r\nHost: [::1]:\(listener.port)\r\nUpgrade: websocket\r\n"))
        await listener.close()
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix) }
}
