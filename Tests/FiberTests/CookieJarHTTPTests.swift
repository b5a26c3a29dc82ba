import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The cookie jar through the `Fiber` API over real loopback sockets: cookies set by
/// redirects reach the next hop, never another host, `Secure` stays on https, and
/// expiry follows the jar's clock.
@Suite struct CookieJarHTTPTests {
    /// A wall clock that moves only when told.
    final class ManualWallClock: Sendable {
        private let time = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    /// Answers with the `Cookie` field it received (`-` when none).
    static let echoCookie: TestHandler = { request in .text(request.header("Cookie") ?? "-") }

    @Test func aCookieSetByALoginRedirectReachesTheNextHop() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/login") { _ in
                TestResponse.redirect(to: "/home", status: 303)
                    .withHeader("Set-Cookie", "session=abc123; Path=/; HttpOnly")
                    .withHeader("Set-Cookie", "theme=dark; Path=/home; Max-Age=3600")
            }
            server.route("/home", Self.echoCookie)
            server.route("/other", Self.echoCookie)
            let jar = CookieJar()
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            let home = try await fiber.post("/login", body: ["user": "ann"])
            #expect(home.statusCode == 200)
            #expect(home.text == "theme=dark; session=abc123")  // the longer path first
            let requests = server.recordedRequests()
            #expect(requests.count == 2 && requests[0].header("Cookie") == nil)
            // Later requests send what fits their path.
            let answer1 = try await fiber.get("/other")
            #expect(answer1.text == "session=abc123")
            #expect(jar.cookies.map(\.name).sorted() == ["session", "theme"])
        }
    }

    @Test func aRedirectToAnotherHostCarriesNoneOfTheFirstHostsCookies() async throws {
        try await withLiveServer { first, transport in
            let second = try await TestHTTPServer.start(on: first.loop)
            // `localhost` resolves to the loopback address the second server listens on: another host for cookies.
            let secondURL = "http://localhost:\(second.port)"
            first.route("/start") { _ in
                TestResponse.redirect(to: secondURL + "/land").withHeader("Set-Cookie", "first=1; Path=/")
            }
            second.route("/land") { request in
                TestResponse.redirect(to: first.url("/back?from=\(request.header("Cookie") ?? "-")"))
                    .withHeader("Set-Cookie", "second=2; Path=/")
            }
            first.route("/back", Self.echoCookie)
            second.route("/again", Self.echoCookie)
            let jar = CookieJar()
            let fiber = Fiber(first.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            let back = try await fiber.get("/start", headers: ["Cookie": "mine=secret"])
            // The caller's own Cookie field went to the first host only; the second saw nothing.
            #expect(back.text == "first=1")
            #expect(second.lastRequest?.header("Cookie") == nil)
            #expect(first.recordedRequests().first?.header("Cookie") == "mine=secret")
            // Each host's cookie was kept for that host.
            let answer2 = try await fiber.get(secondURL + "/again")
            #expect(answer2.text == "second=2")
            await second.shutdown()
        }
    }

    @Test func anotherPortOfTheSameHostSharesCookiesButNotTheCallersField() async throws {
        try await withLiveServer { first, transport in
            let second = try await TestHTTPServer.start(on: first.loop)
            first.route("/start") { _ in
                TestResponse.redirect(to: second.url("/land")).withHeader("Set-Cookie", "shared=1; Path=/")
            }
            second.route("/land", Self.echoCookie)
            let fiber = Fiber(first.baseURL) { $0.transport = transport; $0.cookieJar = CookieJar() }
            // Cookies do not isolate ports (RFC 6265 §8.5); the caller's field is dropped across origins.
            let landed = try await fiber.get("/start", headers: ["Cookie": "mine=secret"])
            #expect(landed.text == "shared=1")
            await second.shutdown()
        }
    }

    @Test func aSameOriginRedirectKeepsTheCallersFieldBesideTheJars() async throws {
        try await withLiveServer { server, transport in
            server.route("/a") { _ in TestResponse.redirect(to: "/b").withHeader("Set-Cookie", "jar=1; Path=/") }
            server.route("/b", Self.echoCookie)
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.cookieJar = CookieJar() }
            let answer3 = try await fiber.get("/a", headers: ["Cookie": "mine=1"])
            #expect(answer3.text == "mine=1; jar=1")
        }
    }

    @Test func secureCookiesAreNotSentOverHTTP() async throws {
        let certificates = try await TestCertificates.shared()
        try await withLiveServer(configure: { $0.tls = certificates.clientTrustingRoot }) { plain, transport in
            var tls = TestHTTPServer.Configuration()
            tls.tls = .server(identity: certificates.serverIdentity())
            let secure = try await TestHTTPServer.start(on: plain.loop, configuration: tls)
            secure.route("/set") { _ in
                TestResponse.ok().withHeader("Set-Cookie", "token=s3cret; Secure; Path=/")
                    .withHeader("Set-Cookie", "lang=en; Path=/")
            }
            secure.route("/read", Self.echoCookie)
            plain.route("/read", Self.echoCookie)
            plain.route("/try") { _ in TestResponse.ok().withHeader("Set-Cookie", "forged=1; Secure; Path=/") }
            let jar = CookieJar()
            let fiber = Fiber(plain.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            _ = try await fiber.get(secure.url("/set"))
            // Both servers are 127.0.0.1: the host matches; only https gets the Secure cookie.
            let answer4 = try await fiber.get(secure.url("/read"))
            #expect(answer4.text == "token=s3cret; lang=en")
            let answer5 = try await fiber.get("/read")
            #expect(answer5.text == "lang=en")
            // And http cannot set one.
            _ = try await fiber.get("/try")
            #expect(!jar.cookies.contains { $0.name == "forged" })
            await secure.shutdown()
        }
    }

    @Test func cookiesExpireByTheJarsClock() async throws {
        try await withLiveServer { server, transport in
            server.route("/set") { _ in
                TestResponse.ok()
                    .withHeader("Set-Cookie", "brief=1; Max-Age=60; Path=/")
                    .withHeader("Set-Cookie", "dated=1; Expires=Wed, 15 Nov 2023 00:00:00 GMT; Path=/")
                    .withHeader("Set-Cookie", "session=1; Path=/")
            }
            server.route("/logout") { _ in TestResponse.ok().withHeader("Set-Cookie", "session=; Max-Age=0; Path=/") }
            server.route("/read", Self.echoCookie)
            let clock = ManualWallClock()
            let jar = CookieJar(now: { clock.now })
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            _ = try await fiber.get("/set")
            let answer6 = try await fiber.get("/read")
            #expect(answer6.text == "brief=1; dated=1; session=1")
            clock.advance(by: 61)
            let answer7 = try await fiber.get("/read")
            #expect(answer7.text == "dated=1; session=1")
            clock.advance(by: 6400)  // past 2023-11-15 00:00:00 GMT
            let answer8 = try await fiber.get("/read")
            #expect(answer8.text == "session=1")
            _ = try await fiber.get("/logout")
            let answer9 = try await fiber.get("/read")
            #expect(answer9.text == "-")
            #expect(jar.cookies.isEmpty)
        }
    }

    @Test func clientsSharingAJarShareCookiesAndClientsWithoutOneSendNone() async throws {
        try await withLiveServer { server, transport in
            server.route("/set") { _ in TestResponse.ok().withHeader("Set-Cookie", "id=7; Path=/") }
            server.route("/read", Self.echoCookie)
            let jar = CookieJar()
            let one = Fiber(server.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            let two = Fiber(server.baseURL) { $0.transport = transport; $0.cookieJar = jar }
            let none = Fiber(server.baseURL) { $0.transport = transport }
            _ = try await one.get("/set")
            let answer10 = try await two.get("/read")
            #expect(answer10.text == "id=7")
            let answer11 = try await none.get("/read")
            #expect(answer11.text == "-")
        }
    }

    @Test func theJarsOwnCallsRefuseURLsThatAreNotHTTP() throws {
        let jar = CookieJar()
        #expect(throws: HTTPClientError.self) { try jar.setCookie("a=1", from: "ftp://h.test/") }
        #expect(throws: HTTPClientError.self) { try jar.cookies(for: "not a url") }
        #expect(try jar.setCookie("a=1; Domain=other.test", from: "http://h.test/") == .refused(.domainMismatch))
        #expect(try jar.setCookie("a=1; Path=/", from: "http://h.test/") == .stored)
        #expect(try jar.cookies(for: "http://h.test/x").map(\.value) == ["1"])
        jar.removeAll()
        #expect(jar.cookies.isEmpty)
    }

    @Test func theMockTransportUsesTheJarToo() async throws {
        let mock = MockTransport()
        mock.stub { request in
            request.url?.path == "/set" ? StubResponse(statusCode: 200, headers: ["Set-Cookie": "m=1; Path=/"]) : nil
        }
        mock.stubDefault { request in .ok(body: request.value(forHTTPHeaderField: "Cookie") ?? "-") }
        let fiber = Fiber(apiURL.absoluteString) { $0.transport = mock; $0.cookieJar = CookieJar() }
        _ = try await fiber.get("/set")
        let answer12 = try await fiber.get("/read")
        #expect(answer12.text == "m=1")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "Cookie") == "m=1")
    }
}
