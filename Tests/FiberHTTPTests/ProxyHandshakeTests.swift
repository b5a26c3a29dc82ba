@testable import FiberRuntime
import Testing

/// The CONNECT and SOCKS5 handshakes as pure values: the bytes they send, and
/// what each answer of a proxy means, fed whole and a byte at a time.
@Suite struct ProxyHandshakeTests {
    // MARK: CONNECT

    static func connect(_ answer: String, byteByByte: Bool) -> HTTPConnectHandshake.Outcome {
        var handshake = HTTPConnectHandshake()
        let bytes = Array(answer.utf8)
        if !byteByByte { return handshake.received(bytes) }
        var outcome = HTTPConnectHandshake.Outcome.needMore
        for byte in bytes {
            outcome = handshake.received([byte])
            if outcome != .needMore { return outcome }
        }
        return outcome
    }

    @Test func connectRequestNamesTheAuthorityAndTheCredentials() {
        let plain = String(decoding: HTTPConnectHandshake.request(host: "example.com", port: 443, credentials: nil), as: UTF8.self)
        #expect(plain == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let v6 = String(decoding: HTTPConnectHandshake.request(
            host: "::1", port: 8443, credentials: ProxyCredentials(username: "Aladdin", password: "open sesame")), as: UTF8.self)
        #expect(v6 == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n"
            + "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n")
    }

    @Test(arguments: [false, true])
    func connectAnswers(byteByByte: Bool) {
        #expect(Self.connect("HTTP/1.1 200 Connection established\r\n\r\n", byteByByte: byteByByte) == .established)
        #expect(Self.connect("HTTP/1.0 200\r\nProxy-Agent: x\r\n\r\n", byteByByte: byteByByte) == .established)
        #expect(Self.connect("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", byteByByte: byteByByte) == .established)
        #expect(Self.connect("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n",
                             byteByByte: byteByByte)
            == .failed(.authenticationRequired, status: 407, detail: "407 Proxy Authentication Required"))
        #expect(Self.connect("HTTP/1.0 401 Unauthorized\r\n\r\n", byteByByte: byteByByte)
            == .failed(.authenticationRequired, status: 401, detail: "401 Unauthorized"))
        #expect(Self.connect("HTTP/1.1 403 Forbidden\r\nContent-Length: 3\r\n\r\nno!", byteByByte: byteByByte)
            == .failed(.refused, status: 403, detail: "403 Forbidden"))
        #expect(Self.connect("HTTP/1.1 502 Bad\u{1}Gateway\r\n\r\n", byteByByte: byteByByte)
            == .failed(.refused, status: 502, detail: "502 BadGateway"))
        #expect(Self.connect("SSH-2.0-OpenSSH\r\n\r\n", byteByByte: byteByByte)
            == .failed(.malformedReply, status: nil, detail: "not an HTTP status line"))
        #expect(Self.connect("HTTP/1.1 200 OK\r\n\r\nearly", byteByByte: false)
            == .failed(.malformedReply, status: 200, detail: "bytes followed the 200 before the client spoke"))
    }

    @Test func anEndlessHeadIsRefused() {
        var handshake = HTTPConnectHandshake()
        #expect(handshake.received(Array("HTTP/1.1 200 OK\r\n".utf8)) == .needMore)
        let line = Array("X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8)
        var outcome = HTTPConnectHandshake.Outcome.needMore
        for _ in 0..<1000 where outcome == .needMore { outcome = handshake.received(line) }
        #expect(outcome == .failed(.malformedReply, status: nil, detail: "a head longer than 16384 bytes"))
    }

    @Test func aCloseBeforeTheHeadIsAClose() {
        var handshake = HTTPConnectHandshake()
        #expect(handshake.closed() == .failed(.closed, status: nil, detail: "before answering CONNECT"))
        _ = handshake.received(Array("HTTP/1.1 2".utf8))
        #expect(handshake.closed() == .failed(.closed, status: nil, detail: "in the middle of its answer"))
    }

    // MARK: SOCKS5

    @Test func noAuthenticationConnectsByName() {
        var socks = SOCKS5Handshake(host: "localhost", port: 8080, credentials: nil)
        #expect(socks.greeting() == [5, 1, 0])
        #expect(socks.received([5, 0]) == .send([5, 1, 0, 3, 9] + Array("localhost".utf8) + [0x1F, 0x90]))
        #expect(socks.received([5, 0, 0, 1, 127, 0, 0, 1]) == .needMore)
        #expect(socks.received([0x1F, 0x90]) == .established)
    }

    @Test func ipLiteralsGoAsAddresses() {
        var v4 = SOCKS5Handshake(host: "10.1.2.3", port: 80, credentials: nil)
        #expect(v4.received([5, 0]) == .send([5, 1, 0, 1, 10, 1, 2, 3, 0, 80]))
        var v6 = SOCKS5Handshake(host: "::1", port: 443, credentials: nil)
        #expect(v6.received([5, 0]) == .send([5, 1, 0, 4] + [UInt8](repeating: 0, count: 15) + [1, 1, 0xBB]))
    }

    @Test func usernameAndPassword() {
        var socks = SOCKS5Handshake(host: "h", port: 1, credentials: ProxyCredentials(username: "bob", password: "pw"))
        #expect(socks.greeting() == [5, 2, 0, 2])
        #expect(socks.received([5, 2]) == .send([1, 3, 0x62, 0x6F, 0x62, 2, 0x70, 0x77]))
        #expect(socks.received([1, 0]) == .send([5, 1, 0, 3, 1, 0x68, 0, 1]))
        // A reply bound to a domain name, byte by byte.
        let reply: [UInt8] = [5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80]
        for byte in reply.dropLast() { #expect(socks.received([byte]) == .needMore) }
        #expect(socks.received([reply.last!]) == .established)
    }

    @Test func refusals() {
        var wrongPassword = SOCKS5Handshake(host: "h", port: 1, credentials: ProxyCredentials(username: "u", password: "p"))
        _ = wrongPassword.received([5, 2])
        #expect(wrongPassword.received([1, 1]) == .failed(.authenticationRequired, replyCode: 1,
                                                          detail: "it refused the user name and password"))
        var noMethod = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        #expect(noMethod.received([5, 0xFF]) == .failed(.authenticationRequired, replyCode: nil,
                                                        detail: "it accepts no unauthenticated clients"))
        var refused = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        _ = refused.received([5, 0])
        #expect(refused.received([5, 5]) == .failed(.refused, replyCode: 5, detail: "reply 5: connection refused"))
        var ruleset = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        _ = ruleset.received([5, 0])
        #expect(ruleset.received([5, 2, 0, 1]) == .failed(.refused, replyCode: 2, detail: "reply 2: connection not allowed by ruleset"))
    }

    @Test func malformedReplies() {
        var badVersion = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        #expect(badVersion.received([4, 0]) == .failed(.malformedReply, replyCode: nil, detail: "version 4 instead of 5"))
        var unoffered = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        #expect(unoffered.received([5, 2]) == .failed(.malformedReply, replyCode: nil,
                                                      detail: "it chose method 2, which was not offered"))
        var badAddress = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        _ = badAddress.received([5, 0])
        #expect(badAddress.received([5, 0, 0, 9, 0]) == .failed(.malformedReply, replyCode: nil,
                                                                detail: "address type 9 in its reply"))
        var trailing = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        _ = trailing.received([5, 0])
        #expect(trailing.received([5, 0, 0, 1, 1, 2, 3, 4, 0, 80, 0x78]) == .failed(
            .malformedReply, replyCode: nil, detail: "bytes followed its reply before the client spoke"))
    }

    @Test func closesSayWhen() {
        let greeting = SOCKS5Handshake(host: "h", port: 1, credentials: nil)
        #expect(greeting.closed() == .failed(.closed, replyCode: nil, detail: "before choosing an authentication method"))
        var authenticating = SOCKS5Handshake(host: "h", port: 1, credentials: ProxyCredentials(username: "u", password: "p"))
        _ = authenticating.received([5, 2])
        if case .failed(let reason, _, _) = authenticating.closed() { #expect(reason == .authenticationRequired) } else {
            Issue.record("expected a failure")
        }
    }
}
