import FiberRuntime
import FiberTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
struct RequestBodyTests {
    @Test func chunkedRequestBodiesAreReadWithTheirTrailers() async throws {
        try await withServer { h in
            h.server.route("POST", "/echo") { request in .ok(request.bodyText) }
            let c = try await h.connect()
            try await c.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
            try await h.loop.sleep(for: .milliseconds(20))
            try await c.send("6\r\n world\r\n0\r\nX-Checksum: 42\r\n\r\n")
            try await c.expect(okBytes("hello world"))
            let request = try #require(h.server.lastRequest)
            #expect(request.body == Array("hello world".utf8))
            #expect(request.trailers["x-checksum"] == "42")
            #expect(request.headers["Transfer-Encoding"] == "chunked")
        }
    }

    @Test func contentLengthBodiesArriveWholeWhenSentInPieces() async throws {
        try await withServer { h in
            h.server.route("PUT", "/echo") { request in .ok("\(request.body.count)") }
            let c = try await h.connect()
            let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
            try await c.send("PUT /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n\r\n")
            for start in stride(from: 0, to: body.count, by: 30_000) {
                try await c.send(Array(body[start..<min(start + 30_000, body.count)]))
                try await h.loop.sleep(for: .milliseconds(5))
            }
            try await c.expect(okBytes("100000"))
            #expect(h.server.lastRequest?.body == body)
        }
    }

    @Test func expectContinueGetsA100BeforeTheBodyIsRead() async throws {
        try await withServer { h in
            h.server.route("PUT", "/up") { request in .ok("got \(request.bodyText)") }
            let c = try await h.connect()
            try await c.send("PUT /up HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            try await c.expect("HTTP/1.1 100 Continue\r\n\r\n")
            #expect(h.server.requestCount == 0)
            try await c.send("hello")
            try await c.expect(okBytes("got hello"))
            // Without a body to wait for, no 100 is sent.
            try await c.send("PUT /up HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\nExpect: 100-continue\r\n\r\n")
            try await c.expect(okBytes("got "))
        }
    }

    @Test func expectContinueCanBeIgnored() async throws {
        var configuration = TestHTTPServer.Configuration()
        configuration.expectContinue = .ignore
        try await withServer(configuration: configuration) { h in
            h.server.route("PUT", "/up") { request in .ok("got \(request.bodyText)") }
            let c = try await h.connect()
            try await c.send("PUT /up HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            try await h.loop.sleep(for: .milliseconds(100))
            try await c.send("hello")
            // The first bytes back are the final response: no 100 came in between.
            try await c.expect(okBytes("got hello"))
        }
    }

    @Test func expectContinueCanBeRejectedWithoutReadingTheBody() async throws {
        let called = Locked(false)
        var configuration = TestHTTPServer.Configuration()
        configuration.expectContinue = .reject(.status(417))
        try await withServer(configuration: configuration) { h in
            h.server.route("PUT", "/up") { _ in
                called.withLock { $0 = true }
                return .ok()
            }
            let c = try await h.connect()
            try await c.send("PUT /up HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            try await c.expect("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            #expect(try await c.isAtEnd())
            #expect(h.server.lastRequest?.body == [])
            #expect(h.server.lastRequest?.path == "/up")
        }
        #expect(called.withLock { $0 } == false)
    }
}
