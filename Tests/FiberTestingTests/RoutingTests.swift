import FiberRuntime
import FiberTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
struct RoutingTests {
    @Test func routesByMethodAndPathAndAnswers404Otherwise() async throws {
        try await withServer { h in
            h.server.route("GET", "/hello") { _ in .ok("hi") }
            h.server.route("POST", "/hello") { request in .text("posted \(request.bodyText)", status: 201) }
            let c = try await h.connect()

            try await c.send(get("/hello"))
            try await c.expect(okBytes("hi"))
            try await c.send("POST /hello HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc")
            try await c.expect("HTTP/1.1 201 Created\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\n\r\nposted abc")
            // The query is not part of the path routes match.
            try await c.send(get("/hello?x=1"))
            try await c.expect(okBytes("hi"))
            // A method without a route, and a path without one.
            try await c.send("DELETE /hello HTTP/1.1\r\nHost: test\r\n\r\n")
            try await c.expect("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n\r\nnot found")
            try await c.send(get("/nowhere"))
            try await c.expect("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n\r\nnot found")
            #expect(h.server.requestCount == 5)
        }
    }

    @Test func prefixRoutesAndTheMostSpecificRouteWins() async throws {
        try await withServer { h in
            h.server.route(prefix: "/files/") { request in .ok("file \(request.path.dropFirst("/files/".count))") }
            h.server.route(prefix: "/files/special/") { _ in .ok("special") }
            h.server.route("/files/exact") { _ in .ok("exact") }
            h.server.route("GET", prefix: "/files/") { _ in .ok("get file") }
            let c = try await h.connect()

            try await c.send("PUT /files/a/b.txt HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            try await c.expect(okBytes("file a/b.txt"))
            // Same prefix, but a route for the method beats one for any method.
            try await c.send(get("/files/a/b.txt"))
            try await c.expect(okBytes("get file"))
            // A longer prefix beats a shorter one, whatever the method.
            try await c.send(get("/files/special/x"))
            try await c.expect(okBytes("special"))
            // An exact path beats every prefix.
            try await c.send(get("/files/exact"))
            try await c.expect(okBytes("exact"))
            try await c.send(get("/file"))
            try await c.expect("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n\r\nnot found")
        }
    }

    @Test func theLastRouteRegisteredForAPathWinsAndFixedResponsesWork() async throws {
        try await withServer { h in
            h.server.route("/a", respond: .ok("first"))
            let c = try await h.connect()
            try await c.send(get("/a"))
            try await c.expect(okBytes("first"))
            h.server.route("/a", respond: .ok("second"))
            try await c.send(get("/a"))
            try await c.expect(okBytes("second"))
            h.server.removeAllRoutes()
            try await c.send(get("/a"))
            try await c.expect("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n\r\nnot found")
        }
    }

    @Test func theDefaultHandlerAnswersWhatNoRouteMatches() async throws {
        try await withServer { h in
            h.server.route("/known", respond: .ok("known"))
            h.server.setDefaultHandler { request in .text("default for \(request.method) \(request.target)", status: 503) }
            let c = try await h.connect()
            try await c.send(get("/unknown?q=1"))
            try await c.expect("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 28\r\n\r\ndefault for GET /unknown?q=1")
            try await c.send(get("/known"))
            try await c.expect(okBytes("known"))
        }
    }

    @Test func handlersSeeTheParsedRequestAndRunOnTheServersLoop() async throws {
        let onLoop = Locked<Bool?>(nil)
        try await withServer { h in
            let loop = h.loop
            h.server.route("POST", "/search") { request in
                onLoop.withLock { $0 = loop.inEventLoop }
                return .ok(request.query("q") ?? "-")
            }
            let c = try await h.connect()
            try await c.send("POST /search?q=a+b&path=%2Ftmp%2Fx&flag&empty=&q=second&bad=%zz HTTP/1.1\r\nHost: test\r\nX-One: 1\r\nx-one: 2\r\nContent-Length: 4\r\n\r\nbody")
            try await c.expect(okBytes("a b"))
            let request = try #require(h.server.lastRequest)
            #expect(request.method == "POST")
            #expect(request.target == "/search?q=a+b&path=%2Ftmp%2Fx&flag&empty=&q=second&bad=%zz")
            #expect(request.path == "/search")
            #expect(request.rawQuery == "q=a+b&path=%2Ftmp%2Fx&flag&empty=&q=second&bad=%zz")
            #expect(request.queryItems == [
                .init(name: "q", value: "a b"), .init(name: "path", value: "/tmp/x"), .init(name: "flag", value: nil),
                .init(name: "empty", value: ""), .init(name: "q", value: "second"), .init(name: "bad", value: "%zz"),
            ])
            #expect(request.headers.values(name: "X-One") == ["1", "2"])
            #expect(request.header("host") == "test")
            #expect(request.bodyText == "body")
            #expect(request.version == .http1_1)
            #expect(request.keepAlive)
        }
        #expect(onLoop.withLock { $0 } == true)
    }

    @Test func targetsSplitIntoPathAndQuery() {
        #expect(TestRequest(method: "GET", target: "/a/b?c=d").path == "/a/b")
        #expect(TestRequest(method: "GET", target: "/a/b").rawQuery == nil)
        #expect(TestRequest(method: "GET", target: "/?").rawQuery == "")
        #expect(TestRequest(method: "GET", target: "?x=1").path == "/")
        #expect(TestRequest(method: "GET", target: "http://example.com/abs?z=1").path == "/abs")
        #expect(TestRequest(method: "GET", target: "http://example.com/abs?z=1").query("z") == "1")
        #expect(TestRequest(method: "GET", target: "http://example.com").path == "/")
        #expect(TestRequest(method: "OPTIONS", target: "*").path == "*")
        #expect(TestRequest(method: "GET", target: "/p#frag").path == "/p")
        #expect(TestRequest(method: "GET", target: "/p?a=%E2%82%AC").query("a") == "€")
    }

    @Test func baseURLNamesTheLoopbackAddressAndPort() async throws {
        try await withServer { h in
            #expect(h.server.baseURL == "http://127.0.0.1:\(h.server.port)")
            #expect(h.server.url("/x") == "http://127.0.0.1:\(h.server.port)/x")
            #expect(h.server.port > 0)
            #expect(h.server.loop === h.loop)
        }
    }
}
