@testable import FiberRuntime
import Testing

@Suite("HTTP/1.1 request serializer")
struct SerializerTests {
    let target = HTTPTarget(scheme: "http", host: "example.test", port: 8080, pathAndQuery: "/a?b=c")

    private func text(_ head: (bytes: [UInt8], framing: HTTP1RequestSerializer.Framing)) -> String {
        String(decoding: head.bytes, as: UTF8.self)
    }

    @Test func writesRequestLineHostAndHeadersInOrder() throws {
        let head = try HTTP1RequestSerializer.head(method: "GET", target: target,
                                                   headers: [("Accept", "*/*"), ("X-A", "1"), ("x-a", "2")].reduce(into: HTTPHeaders()) { $0.append(name: $1.0, value: $1.1) },
                                                   bodyLength: nil, hasBody: false)
        #expect(text(head) == "GET /a?b=c HTTP/1.1\r\nHost: example.test:8080\r\nAccept: */*\r\nX-A: 1\r\nx-a: 2\r\n\r\n")
        #expect(head.framing == .none)
    }

    @Test func framesBodiesByLengthOrChunks() throws {
        let sized = try HTTP1RequestSerializer.head(method: "POST", target: target, headers: ["Content-Length": "999"], bodyLength: 5, hasBody: true)
        #expect(text(sized).hasSuffix("Content-Length: 5\r\n\r\n"))
        #expect(!text(sized).contains("999"))
        let streamed = try HTTP1RequestSerializer.head(method: "PUT", target: target, headers: [:], bodyLength: nil, hasBody: true)
        #expect(streamed.framing == .chunked)
        #expect(text(streamed).contains("Transfer-Encoding: chunked\r\n"))
        let emptyPost = try HTTP1RequestSerializer.head(method: "POST", target: target, headers: [:], bodyLength: nil, hasBody: false)
        #expect(text(emptyPost).contains("Content-Length: 0\r\n"))
        #expect(HTTP1RequestSerializer.chunk(Array("hello".utf8)).joined().elementsEqual("5\r\nhello\r\n".utf8))
    }

    @Test func defaultPortsAndIPv6HostsInTheHostHeader() {
        #expect(HTTPTarget(scheme: "http", host: "h", port: 80, pathAndQuery: "/").hostHeader == "h")
        #expect(HTTPTarget(scheme: "https", host: "h", port: 443, pathAndQuery: "/").hostHeader == "h")
        #expect(HTTPTarget(scheme: "http", host: "::1", port: 81, pathAndQuery: "/").hostHeader == "[::1]:81")
    }

    @Test(arguments: ["X-Bad\r\nInjected: yes", "X-Nul\u{0}", "Bad Name", ""])
    func refusesHeaderNamesThatAreNotTokens(name: String) {
        #expect { try HTTP1RequestSerializer.head(method: "GET", target: target, headers: [name: "v"], bodyLength: nil, hasBody: false) }
            throws: { ($0 as? HTTPClientError)?.kind == .invalidHeader }
    }

    @Test(arguments: ["a\r\nInjected: yes", "a\nb", "a\rb", "nul\u{0}", "bell\u{7}", "del\u{7F}", "esc\u{1B}[2J"])
    func refusesValuesWithControlBytes(value: String) {
        #expect { try HTTP1RequestSerializer.head(method: "GET", target: target, headers: ["X": value], bodyLength: nil, hasBody: false) }
            throws: { ($0 as? HTTPClientError)?.kind == .invalidHeader }
    }

    /// The token rule as RFC 9110 writes it (`tchar`), for every byte, alone and inside a name,
    /// and the value rule for every byte; a multi-byte name is not a token.
    @Test func tokenAndValueRulesForEveryByte() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPHeaders.isTokenByte(byte) == tchar.contains(byte), "byte \(byte)")
            let text = String(decoding: [UInt8(ascii: "a"), byte, UInt8(ascii: "z")], as: UTF8.self)
            #expect(HTTPHeaders.isToken(text) == tchar.contains(byte), "byte \(byte)")
            #expect(HTTPHeaders.isValidValue(text) == (byte == 0x09 || (byte >= 0x20 && byte != 0x7F)), "byte \(byte)")
        }
        #expect(!HTTPHeaders.isToken(""))
        #expect(!HTTPHeaders.isToken("Grüße"))
        #expect(HTTPHeaders.isValidValue("Grüße, \u{1F600}"))
        // A long name (not a small string) takes the same path.
        #expect(HTTPHeaders.isToken(String(repeating: "X-Long-Name", count: 10)))
        #expect(!HTTPHeaders.isToken(String(repeating: "X-Long-Name", count: 10) + ":"))
    }

    /// A target made from parts rather than parsed, or a host, cannot put a
    /// CR LF or space into the request line or `Host`.
    @Test(arguments: ["/a\r\nEvil: 1", "/a b", "/a\u{0}", ""])
    func refusesATargetWithAControlByteOrSpace(path: String) {
        let target = HTTPTarget(scheme: "http", host: "h", port: 80, pathAndQuery: path)
        #expect { try HTTP1RequestSerializer.head(method: "GET", target: target, headers: [:], bodyLength: nil, hasBody: false) }
            throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
    }

    @Test func refusesAHostWithAControlByteUnlessTheCallerGaveHost() throws {
        let target = HTTPTarget(scheme: "http", host: "h\r\nEvil: 1", port: 80, pathAndQuery: "/")
        #expect { try HTTP1RequestSerializer.head(method: "GET", target: target, headers: [:], bodyLength: nil, hasBody: false) }
            throws: { ($0 as? HTTPClientError)?.kind == .invalidHeader }
        let head = try HTTP1RequestSerializer.head(method: "GET", target: target, headers: ["Host": "given"], bodyLength: nil, hasBody: false)
        #expect(text(head) == "GET / HTTP/1.1\r\nHost: given\r\n\r\n")
    }

    @Test func refusesABadMethod() {
        #expect { try HTTP1RequestSerializer.head(method: "GET /x", target: target, headers: [:], bodyLength: nil, hasBody: false) }
            throws: { ($0 as? HTTPClientError)?.kind == .invalidHeader }
    }

    @Test(arguments: [
        ("http://example.com", "http", "example.com", 80, "/"),
        ("https://example.com:8443/p/a%20th?q=1#frag", "https", "example.com", 8443, "/p/a%20th?q=1"),
        ("http://[::1]:9000/x", "http", "::1", 9000, "/x"),
        ("HTTP://EXAMPLE.com/", "http", "EXAMPLE.com", 80, "/"),
    ])
    func parsesURLs(url: String, scheme: String, host: String, port: Int, path: String) throws {
        let t = try HTTPTarget(url)
        #expect(t.scheme == scheme && t.host.lowercased() == host.lowercased() && t.port == port && t.pathAndQuery == path)
    }

    @Test(arguments: ["ftp://x/", "/relative", "http://", "http://user:pw@host/", "http://h:70000/", "not a url"])
    func rejectsBadURLs(url: String) {
        #expect { try HTTPTarget(url) } throws: { ($0 as? HTTPClientError)?.kind == .invalidURL }
    }
}
