import FiberRuntime
import FiberTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ConnectionTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await withServer { h in
            h.server.route("/a", respond: .ok("a"))
            h.server.route("/b", respond: .ok("b"))
            let c = try await h.connect()
            try await c.send(get("/a"))
            try await c.expect(okBytes("a"))
            try await c.send(get("/b"))
            try await c.expect(okBytes("b"))

            let other = try await h.connect()
            try await other.send(get("/a"))
            try await other.expect(okBytes("a"))

            let requests = h.server.recordedRequests()
            #expect(requests.map(\.path) == ["/a", "/b", "/a"])
            #expect(requests.map(\.connectionNumber) == [1, 1, 2])
            #expect(requests.map(\.numberOnConnection) == [1, 2, 1])
            #expect(requests.map(\.sequenceNumber) == [1, 2, 3])
            #expect(h.server.connectionCount == 2)
            #expect(h.server.openConnectionCount == 2)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { h in
            h.server.route("/slow") { _ in
                try await Task.sleep(for: .milliseconds(50))
                return .ok("slow")
            }
            h.server.route("/fast", respond: .ok("fast"))
            let c = try await h.connect()
            try await c.send(get("/slow") + get("/fast") + "POST /slow HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
            try await c.expect(okBytes("slow") + okBytes("fast") + okBytes("slow"))
            #expect(h.server.recordedRequests().map(\.connectionNumber) == [1, 1, 1])
            #expect(h.server.lastRequest?.bodyText == "hi")
        }
    }

    @Test func connectionCloseFromTheClientClosesAfterTheResponse() async throws {
        try await withServer { h in
            h.server.route("/a", respond: .ok("a"))
            let c = try await h.connect()
            try await c.send(get("/a", "Connection: close\r\n"))
            try await c.expect(okBytes("a", extra: "Connection: close\r\n"))
            #expect(try await c.isAtEnd())
            #expect(h.server.lastRequest?.keepAlive == false)
            await c.close()
            try await h.server.waitForOpenConnections(0)
        }
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() async throws {
        try await withServer { h in
            h.server.route("/a", respond: .ok("a"))
            let c = try await h.connect()
            try await c.send("GET /a HTTP/1.0\r\n\r\n")
            try await c.expect(okBytes("a", extra: "Connection: close\r\n"))
            #expect(try await c.isAtEnd())
            #expect(h.server.lastRequest?.version == .http1_0)

            let k = try await h.connect()
            try await k.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            try await k.expect(okBytes("a", extra: "Connection: keep-alive\r\n"))
            try await k.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            try await k.expect(okBytes("a", extra: "Connection: keep-alive\r\n"))
            try await k.send("GET /a HTTP/1.0\r\n\r\n")
            try await k.expect(okBytes("a", extra: "Connection: close\r\n"))
            #expect(try await k.isAtEnd())
            #expect(h.server.recordedRequests().map(\.connectionNumber) == [1, 2, 2, 2])
        }
    }

    @Test func headGetsTheHeadOnlyAndTheConnectionGoesOn() async throws {
        try await withServer { h in
            h.server.route("GET", "/a", respond: .ok("hello"))
            h.server.route("GET", "/chunked", respond: .chunked(["hello"]))
            h.server.route("GET", "/stream", respond: .stream { _ in Issue.record("a HEAD response's body was produced") })
            let c = try await h.connect()
            try await c.send("HEAD /a HTTP/1.1\r\nHost: test\r\n\r\n")
            try await c.expect("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n")
            try await c.send("HEAD /chunked HTTP/1.1\r\nHost: test\r\n\r\n")
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            try await c.send("HEAD /stream HTTP/1.1\r\nHost: test\r\n\r\n")
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            // Had a body followed any head, this response would not line up.
            try await c.send(get("/a"))
            try await c.expect(okBytes("hello"))
            #expect(h.server.recordedRequests().map(\.method) == ["HEAD", "HEAD", "HEAD", "GET"])
        }
    }

    @Test func theServerCountsOpenConnectionsAsClientsComeAndGo() async throws {
        try await withServer { h in
            let a = try await h.connect()
            let b = try await h.connect()
            try await h.server.waitForOpenConnections(2)
            #expect(h.server.connectionCount == 2)
            await a.close()
            try await h.server.waitForOpenConnections(1)
            await b.close()
            try await h.server.waitForOpenConnections(0)
            #expect(h.server.connectionCount == 2)
            #expect(h.server.requestCount == 0)
        }
    }

    @Test func idleConnectionsCloseAfterTheIdleTimeout() async throws {
        var configuration = TestHTTPServer.Configuration()
        // Long enough that a loaded machine (sanitizers, ninety suites in parallel) still
        // reads the first request and sends the second inside it; the slow handler is longer still.
        configuration.idleTimeout = .seconds(6)
        try await withServer(configuration: configuration) { h in
            h.server.route("/a", respond: .ok("a"))
            h.server.route("/slow") { _ in
                try await Task.sleep(for: .seconds(7))
                return .ok("slow")
            }
            let c = try await h.connect()
            // A slow handler is not idleness.
            try await c.send(get("/slow"))
            try await c.expect(okBytes("slow"))
            try await c.send(get("/a"))
            try await c.expect(okBytes("a"))
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await c.isAtEnd())
            #expect(clock.now - start >= .seconds(3))
            await c.close()
            try await h.server.waitForOpenConnections(0)
        }
    }

    @Test func connectionsCloseAfterTheirRequestLimit() async throws {
        var configuration = TestHTTPServer.Configuration()
        configuration.maxRequestsPerConnection = 2
        try await withServer(configuration: configuration) { h in
            h.server.route("/a", respond: .ok("a"))
            let c = try await h.connect()
            try await c.send(get("/a"))
            try await c.expect(okBytes("a"))
            try await c.send(get("/a"))
            try await c.expect(okBytes("a", extra: "Connection: close\r\n"))
            #expect(try await c.isAtEnd())
        }
    }

    @Test func closeConnectionsDropsEveryConnectionButKeepsListening() async throws {
        try await withServer { h in
            h.server.route("/a", respond: .ok("a"))
            let c = try await h.connect()
            try await c.send(get("/a"))
            try await c.expect(okBytes("a"))
            let idle = try await h.connect()
            try await h.server.waitForOpenConnections(2)
            await h.server.closeConnections()
            #expect(h.server.openConnectionCount == 0)
            #expect(try await c.isAtEnd())
            #expect(try await idle.isAtEnd())
            let again = try await h.connect()
            try await again.send(get("/a"))
            try await again.expect(okBytes("a"))
            #expect(h.server.recordedRequests().map(\.connectionNumber) == [1, 3])
        }
    }
}
