import FiberRuntime
@testable import FiberWebSocket
import Testing

@Suite("Opening handshake")
struct HandshakeTests {
    @Test func acceptValueMatchesRFC6455() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func keysAreFreshSixteenByteBase64() {
        let keys = (0..<20).map { _ in WebSocketHandshake.randomKey() }
        #expect(Set(keys).count == 20)
        #expect(keys.allSatisfy { $0.count == 24 && $0.hasSuffix("==") })
    }

    @Test func writesTheUpgradeRequest() throws {
        let h = WebSocketHandshake(key: "k", subprotocols: ["chat", "v2"], deflate: PerMessageDeflate(clientNoContextTakeover: true))
        var headers = HTTPHeaders()
        headers.append(name: "Authorization", value: "Bearer t")
        let text = String(decoding: try h.request(path: "/s?x=1", hostHeader: "h:81", headers: headers), as: UTF8.self)
        #expect(text.hasPrefix("GET /s?x=1 HTTP/1.1\r\nHost: h:81\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"))
        #expect(text.contains("Sec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(text.contains("Sec-WebSocket-Protocol: chat, v2\r\n"))
        #expect(text.contains("Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; client_max_window_bits\r\n"))
        #expect(text.hasSuffix("Authorization: Bearer t\r\n\r\n"))
    }

    @Test func refusesHeadersThatCouldSplitTheRequestOrThatItOwns() {
        let h = WebSocketHandshake(key: "k")
        #expect(throws: WebSocketError.self) { _ = try h.request(path: "/", hostHeader: "h", headers: ["X": "a\r\nEvil: 1"]) }
        #expect(throws: WebSocketError.self) { _ = try h.request(path: "/", hostHeader: "h", headers: ["Sec-WebSocket-Key": "x"]) }
    }

    /// Every field of the one list the handshake owns is refused from the caller, in any case.
    @Test(arguments: WebSocketHandshake.ownedFields.sorted())
    func refusesEveryFieldItOwns(name: String) {
        let h = WebSocketHandshake(key: "k", subprotocols: ["chat"])
        for spelling in [name, name.uppercased()] {
            #expect { _ = try h.request(path: "/", hostHeader: "h", headers: [spelling: "1"]) }
                throws: { ($0 as? WebSocketError)?.kind == .invalidHeader }
        }
    }

    /// Names that are not tokens, and subprotocols that are not, never reach the request's head.
    @Test(arguments: ["Bad Name", "X:Y", "", "Grüße", "X\r\nEvil"])
    func refusesNamesThatAreNotTokens(name: String) {
        let h = WebSocketHandshake(key: "k")
        #expect { _ = try h.request(path: "/", hostHeader: "h", headers: [name: "v"]) }
            throws: { ($0 as? WebSocketError)?.kind == .invalidHeader }
    }

    @Test(arguments: ["chat\r\nEvil: 1", "two words", "", "a,b"])
    func refusesSubprotocolsThatAreNotTokens(subprotocol: String) throws {
        let h = WebSocketHandshake(key: "k", subprotocols: ["chat", subprotocol])
        #expect { _ = try h.request(path: "/", hostHeader: "h", headers: [:]) }
            throws: { ($0 as? WebSocketError)?.kind == .invalidHeader }
        let fine = try WebSocketHandshake(key: "k", subprotocols: ["chat", "v2.json"]).request(path: "/", hostHeader: "h", headers: [:])
        #expect(String(decoding: fine, as: UTF8.self).contains("Sec-WebSocket-Protocol: chat, v2.json\r\n"))
    }

    func head(_ fields: [(String, String)]) -> HTTPHeaders { HTTPHeaders(fields) }

    func good(_ key: String, _ extra: [(String, String)] = []) -> HTTPHeaders {
        head([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", WebSocketHandshake.acceptValue(for: key))] + extra)
    }

    @Test func validatesTheAnswer() throws {
        let h = WebSocketHandshake(key: "abc", subprotocols: ["chat"], deflate: PerMessageDeflate())
        #expect(try h.validate(status: 101, headers: good("abc")) == .init(subprotocol: nil, deflate: nil))
        #expect(try h.validate(status: 101, headers: good("abc", [("Sec-WebSocket-Protocol", "chat")])).subprotocol == "chat")
        let negotiated = try h.validate(status: 101, headers: good("abc", [("Sec-WebSocket-Extensions", "permessage-deflate; server_no_context_takeover; client_max_window_bits=10")]))
        #expect(negotiated.deflate?.serverNoContextTakeover == true && negotiated.deflate?.clientMaxWindowBits == 10)
    }

    @Test(arguments: [
        [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "wrong")],
        [("Connection", "Upgrade")],
        [("Upgrade", "websocket")],
    ] as [[(String, String)]])
    func rejectsBadAnswers(fields: [(String, String)]) {
        let h = WebSocketHandshake(key: "abc")
        #expect { _ = try h.validate(status: 101, headers: head(fields)) } throws: { ($0 as? WebSocketError)?.kind == .handshakeFailed }
    }

    @Test(arguments: [
        ("Sec-WebSocket-Protocol", "other"),
        ("Sec-WebSocket-Extensions", "x-unknown"),
        ("Sec-WebSocket-Extensions", "permessage-deflate; bogus"),
        ("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits=16"),
        ("Sec-WebSocket-Extensions", "permessage-deflate, permessage-deflate"),
    ])
    func rejectsNegotiationsNeverOffered(name: String, value: String) {
        let h = WebSocketHandshake(key: "abc", subprotocols: ["chat"], deflate: PerMessageDeflate())
        #expect { _ = try h.validate(status: 101, headers: good("abc", [(name, value)])) } throws: { ($0 as? WebSocketError)?.kind == .handshakeFailed }
    }

    @Test func extensionsWithoutAnOfferAreRejected() {
        let h = WebSocketHandshake(key: "abc")
        #expect(throws: WebSocketError.self) { _ = try h.validate(status: 101, headers: good("abc", [("Sec-WebSocket-Extensions", "permessage-deflate")])) }
    }

    @Test func parsesURLs() throws {
        let u = try HTTPTarget(webSocketURL: "ws://example.com/chat?room=1")
        #expect(u.host == "example.com" && u.port == 80 && u.pathAndQuery == "/chat?room=1" && u.hostHeader == "example.com")
        #expect(try HTTPTarget(webSocketURL: "wss://[::1]:8443").hostHeader == "[::1]:8443")
        #expect(throws: WebSocketError.self) { _ = try HTTPTarget(webSocketURL: "http://example.com/") }
        #expect(throws: WebSocketError.self) { _ = try HTTPTarget(webSocketURL: "ws://u:p@example.com/") }
    }
}
