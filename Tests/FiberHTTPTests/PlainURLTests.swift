import Testing
@testable import FiberRuntime

/// The fast URL parser must agree with the general one (Foundation's `URL`)
/// on every URL it accepts, and hand everything else over to it.
@Suite("Plain request URLs")
struct PlainURLTests {
    static let accepted = [
        "http://127.0.0.1:8080/", "http://localhost", "https://api.example.com", "http://h:80/a/b?c=d&e=f",
        "https://h:8443/x?y", "http://h?q=1", "http://h/?", "http://h/a/../b/./c", "http://h/%41%7e?x=%2F",
        "http://h/p;param/q@r:s!$&'()*+,=", "http://h/~user/_x-y.z", "http://sub-1.h-2.example/", "http://h:0080/",
        "http://h:1/", "http://h:65535/", "http://h//double//slash", "http://h/a?b?c", "https://1.2.3.4/",
    ]

    static let handedOver = [
        "HTTP://h/", "http://H/", "http://[::1]:8080/", "http://u:p@h/", "http://h/#frag", "http://h/a b",
        "http://h/%zz", "http://h/%4", "http://h/é", "http://h:/", "http://h:65536/", "http://h:0/", "http://h:123456/",
        "ftp://h/", "http:/h", "http://", "http://h/\"quoted\"", "http://h/{x}", "http://h/a|b", "http://h\\x",
    ]

    @Test(arguments: accepted)
    func agreesWithTheGeneralParser(url: String) throws {
        let plain = try #require(HTTPTarget.parsePlain(url))
        let general = try HTTPTarget.parseWithURL(url)
        #expect(plain == general)
        #expect(try HTTPTarget(url) == general)
    }

    @Test(arguments: handedOver)
    func handsEverythingElseOver(url: String) {
        #expect(HTTPTarget.parsePlain(url) == nil)
        // Whatever the general parser says (a target or .invalidURL) is what the public initializer says.
        let general = Result { try HTTPTarget.parseWithURL(url) }
        let viaInit = Result { try HTTPTarget(url) }
        switch (general, viaInit) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)):
            #expect((a as? HTTPClientError)?.kind == .invalidURL && (b as? HTTPClientError)?.kind == .invalidURL)
        default: Issue.record("the two parsers disagree on \(url)")
        }
    }
}

/// The same two parsers serve WebSocket URLs (`ws`, `wss`): the fast one
/// agrees with the general one on every URL it accepts, and each family
/// refuses the other's schemes.
@Suite("Plain WebSocket URLs")
struct PlainWebSocketURLTests {
    static let accepted = [
        "ws://127.0.0.1:8080/", "ws://localhost", "wss://stream.example.com", "ws://h:80/a/b?c=d&e=f",
        "wss://h:8443/chat?room=1", "ws://h?q=1", "ws://h/%41%7e?x=%2F", "wss://1.2.3.4/", "ws://h:0080/", "wss://h:65535/",
    ]

    static let handedOver = [
        "WS://h/", "wss://H/", "ws://[::1]:8080/", "wss://[2001:db8::1]/", "ws://u:p@h/", "ws://u@h/", "ws://h/#frag",
        "ws://h/#", "ws://h:0/", "ws://h:65536/", "ws://h:/", "ws://h/a b", "ws://h/%zz", "ws:/h", "ws://",
        "http://h/", "https://h/",
    ]

    @Test(arguments: accepted)
    func agreesWithTheGeneralParser(url: String) throws {
        let plain = try #require(HTTPTarget.parsePlain(url, schemes: .webSocket))
        let general = try HTTPTarget.parseWithURL(url, schemes: .webSocket)
        #expect(plain == general)
        #expect(try HTTPTarget(url, schemes: .webSocket) == general)
        #expect(plain.scheme == (url.hasPrefix("wss") ? "wss" : "ws"))
        #expect(plain.isSecure == url.hasPrefix("wss"))
    }

    @Test(arguments: handedOver)
    func handsEverythingElseOver(url: String) {
        #expect(HTTPTarget.parsePlain(url, schemes: .webSocket) == nil)
        let general = Result { try HTTPTarget.parseWithURL(url, schemes: .webSocket) }
        let viaInit = Result { try HTTPTarget(url, schemes: .webSocket) }
        switch (general, viaInit) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)):
            #expect((a as? HTTPClientError)?.kind == .invalidURL && (b as? HTTPClientError)?.kind == .invalidURL)
        default: Issue.record("the two parsers disagree on \(url)")
        }
    }

    /// A WebSocket URL is an HTTP URL with another scheme: the same host, port
    /// and target, TLS for `wss` as for `https`, the same defaults.
    @Test(arguments: ["://h", "://h:81/a?b", "://[::1]:9000/x", "://h/p%20q?r=%2F", "://h:443/", "://h:80/"])
    func parsesAsItsHTTPCounterpart(rest: String) throws {
        for (webSocket, http) in [("ws", "http"), ("wss", "https")] {
            let a = try HTTPTarget(webSocket + rest, schemes: .webSocket)
            let b = try HTTPTarget(http + rest)
            #expect(a.host == b.host && a.port == b.port && a.pathAndQuery == b.pathAndQuery)
            #expect(a.isSecure == b.isSecure && a.hostHeader == b.hostHeader)
            #expect(a.scheme == webSocket && a.origin == webSocket + "://" + b.hostHeader)
        }
    }

    @Test func eachFamilyRefusesTheOthersSchemes() {
        for url in ["ws://h/", "wss://h/"] {
            #expect { try HTTPTarget(url) } throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
        }
        for url in ["http://h/", "https://h/"] {
            #expect { try HTTPTarget(url, schemes: .webSocket) } throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
        }
    }

    /// A fragment never reaches an HTTP server and is dropped; a WebSocket URL may not have one (RFC 6455 §3).
    @Test func aFragmentIsDroppedFromHTTPAndRefusedFromWebSocket() throws {
        #expect(try HTTPTarget("http://h/a?b#c").pathAndQuery == "/a?b")
        #expect { try HTTPTarget("ws://h/a?b#c", schemes: .webSocket) } throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
    }
}
