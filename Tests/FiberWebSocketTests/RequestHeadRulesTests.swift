import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Testing

/// The upgrade request's head comes from the runtime's one request-head
/// writer, so a header that may not go out with an HTTP request may not go
/// out with an upgrade either: refused by the same rule, in the same words,
/// before any connection is made.
@Suite("One request-head writer")
struct RequestHeadRulesTests {
    static let badValues = ["a\r\nEvil: 1", "a\nEvil: 1", "a\rb", "nul\u{0}", "bell\u{7}", "del\u{7F}", "\r\n\r\nGET /other HTTP/1.1"]
    static let badNames = ["X\r\nEvil", "X-Evil\n", "Bad Name", "X:Y", "", "Grüße"]

    /// The serializer's refusal and the handshake's, for the same fields.
    private func refusals(_ headers: HTTPHeaders) -> (http: HTTPClientError?, webSocket: WebSocketError?) {
        var http: HTTPClientError?
        do {
            _ = try HTTP1RequestSerializer.head(method: "GET", requestTarget: "/", host: "h", headers: headers, bodyLength: nil, hasBody: false)
        } catch {
            http = error
        }
        var webSocket: WebSocketError?
        do {
            _ = try WebSocketHandshake(key: "k").request(path: "/", hostHeader: "h", headers: headers)
        } catch {
            webSocket = error
        }
        return (http, webSocket)
    }

    @Test(arguments: badValues)
    func aValueWithACRLFOrControlByteIsRefusedOnBothPaths(value: String) throws {
        let (http, webSocket) = refusals(["X-Custom": value])
        let httpError = try #require(http)
        let webSocketError = try #require(webSocket)
        #expect(httpError.kind == .invalidHeader)
        #expect(webSocketError.kind == .invalidHeader)
        // The same rule said it: the handshake reports the serializer's reason.
        let reason = try #require(httpError.detail)
        #expect(webSocketError.message.contains(reason))
    }

    @Test(arguments: badNames)
    func aNameThatIsNotATokenIsRefusedOnBothPaths(name: String) throws {
        let (http, webSocket) = refusals([name: "v"])
        #expect(try #require(http).kind == .invalidHeader)
        #expect(try #require(webSocket).kind == .invalidHeader)
    }

    /// What one path sends, the other sends in the same bytes: tabs, spaces, UTF-8.
    @Test(arguments: ["plain", "a\tb", "two  spaces", "Grüße, \u{1F600}", "", "=?utf-8?q?x?="])
    func anAcceptableValueIsWrittenTheSameOnBothPaths(value: String) throws {
        let (http, webSocket) = refusals(["X-Custom": value])
        #expect(http == nil && webSocket == nil)
        let line = "\r\nX-Custom: \(value)\r\n"
        let httpHead = try HTTP1RequestSerializer.head(method: "GET", requestTarget: "/", host: "h", headers: ["X-Custom": value],
                                                       bodyLength: nil, hasBody: false)
        let upgrade = try WebSocketHandshake(key: "k").request(path: "/", hostHeader: "h", headers: ["X-Custom": value])
        #expect(String(decoding: httpHead.bytes, as: UTF8.self).contains(line))
        #expect(String(decoding: upgrade, as: UTF8.self).contains(line))
    }

    /// The request line and `Host` follow the rule too: a path or host from a
    /// caller cannot smuggle fields in.
    @Test(arguments: ["/a\r\nEvil: 1", "/a b", "/a\u{0}", ""])
    func aTargetWithACRLFOrSpaceIsRefusedOnBothPaths(path: String) throws {
        #expect {
            try HTTP1RequestSerializer.head(method: "GET", requestTarget: path, host: "h", headers: [:], bodyLength: nil, hasBody: false)
        } throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
        #expect { try WebSocketHandshake(key: "k").request(path: path, hostHeader: "h", headers: [:]) } throws: {
            ($0 as? WebSocketError)?.kind == .invalidURL
        }
    }

    @Test func aHostOrKeyWithACRLFIsRefusedOnBothPaths() {
        #expect {
            try HTTP1RequestSerializer.head(method: "GET", requestTarget: "/", host: "h\r\nEvil: 1", headers: [:], bodyLength: nil, hasBody: false)
        } throws: { ($0 as? HTTPClientError)?.kind == .invalidHeader }
        #expect { try WebSocketHandshake(key: "k").request(path: "/", hostHeader: "h\r\nEvil: 1", headers: [:]) } throws: {
            ($0 as? WebSocketError)?.kind == .invalidHeader
        }
        #expect { try WebSocketHandshake(key: "k\r\nEvil: 1").request(path: "/", hostHeader: "h", headers: [:]) } throws: {
            ($0 as? WebSocketError)?.kind == .invalidHeader
        }
    }

    /// The handshake's own fields come first, in their order, then the caller's;
    /// `Host` from the URL; no framing fields (a GET without a body).
    @Test func theUpgradeHeadIsTheSerializersWithTheHandshakesFieldsFirst() throws {
        let handshake = WebSocketHandshake(key: "k", subprotocols: ["chat"])
        let upgrade = String(decoding: try handshake.request(path: "/s?x=1", hostHeader: "h:81", headers: ["Origin": "o", "X-A": "1"]),
                             as: UTF8.self)
        #expect(upgrade == "GET /s?x=1 HTTP/1.1\r\nHost: h:81\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chat\r\nOrigin: o\r\nX-A: 1\r\n\r\n")
    }

    /// Over loopback: neither path opens a connection for a header it refuses.
    @Test func neitherPathConnectsWithAnInjectedHeader() async throws {
        let injected: HTTPHeaders = ["X-Custom": "a\r\nEvil: 1"]
        let webSocketServer = try await TestWebSocketServer.start()
        await #expect { _ = try await WebSocketClient.open(webSocketServer.url, headers: injected) } throws: {
            ($0 as? WebSocketError)?.kind == .invalidHeader
        }
        let group = EventLoopGroup(loopCount: 1, name: "head-rules")
        let httpServer = try await TestHTTPServer.start(on: group.loops[0])
        httpServer.route("/", respond: .ok("hi"))
        let client = HTTPClient(eventLoopGroup: group, configuration: .init())
        await #expect { _ = try await client.execute(HTTPClientRequest(url: httpServer.url("/"), headers: injected)) } throws: {
            ($0 as? HTTPClientError)?.kind == .invalidHeader
        }
        // The same header, acceptable, goes out on both.
        let fine: HTTPHeaders = ["X-Custom": "a b"]
        let ws = try await WebSocketClient.open(webSocketServer.url, headers: fine)
        _ = try await client.execute(HTTPClientRequest(url: httpServer.url("/"), headers: fine))
        #expect(webSocketServer.acceptedCount == 1 && httpServer.connectionCount == 1)
        #expect(webSocketServer.requests.last?.headers.first(name: "X-Custom") == "a b")
        #expect(httpServer.lastRequest?.header("X-Custom") == "a b")
        ws.close()
        _ = await allEvents(ws)
        await client.shutdown()
        await httpServer.shutdown()
        await webSocketServer.shutdown()
        try await group.shutdown()
    }
}
