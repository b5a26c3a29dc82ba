import FiberRuntime
import FiberTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ResponseTests {
    @Test func factoriesProduceTheDocumentedBytes() async throws {
        try await withServer { h in
            h.server.route("/json", respond: .json(#"{"a":true}"#))
            h.server.route("/created", respond: .json("{}", status: 201))
            h.server.route("/redirect", respond: .redirect(to: "/elsewhere"))
            h.server.route("/moved", respond: .redirect(to: "http://other.invalid/x", status: 301))
            h.server.route("/no-content", respond: .status(204))
            h.server.route("/not-modified", respond: .status(304))
            h.server.route("/teapot", respond: .status(418, reason: "I'm a teapot"))
            h.server.route("/unknown", respond: .status(599))
            h.server.route("/bytes", respond: .bytes([0, 1, 2], headers: ["Content-Type": "application/octet-stream"]))
            h.server.route("/header", respond: .ok("x").withHeader("X-A", "1").withHeader("X-A", "2"))
            let c = try await h.connect()
            let expectations: [(String, String)] = [
                ("/json", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"a\":true}"),
                ("/created", "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"),
                ("/redirect", "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"),
                ("/moved", "HTTP/1.1 301 Moved Permanently\r\nLocation: http://other.invalid/x\r\nContent-Length: 0\r\n\r\n"),
                ("/no-content", "HTTP/1.1 204 No Content\r\n\r\n"),
                ("/not-modified", "HTTP/1.1 304 Not Modified\r\n\r\n"),
                ("/teapot", "HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\n\r\n"),
                ("/unknown", "HTTP/1.1 599 \r\nContent-Length: 0\r\n\r\n"),
                ("/bytes", "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 3\r\n\r\n\u{0}\u{1}\u{2}"),
                ("/header", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nX-A: 1\r\nX-A: 2\r\nContent-Length: 1\r\n\r\nx"),
            ]
            for (path, expected) in expectations {
                try await c.send(get(path))
                try await c.expect(expected)
            }
        }
    }

    @Test func chunkedBodiesAreFramedWithTrailers() async throws {
        try await withServer { h in
            h.server.route("/chunked", respond: .chunked(["hello", "", " world"], trailers: ["X-Sum": "abc"]))
            h.server.route("/plain", respond: .chunked([Array("0123456789abcdefg".utf8)]))
            let c = try await h.connect()
            try await c.send(get("/chunked"))
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: abc\r\n\r\n")
            try await c.send(get("/plain"))
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n11\r\n0123456789abcdefg\r\n0\r\n\r\n")
        }
    }

    @Test func streamedBodiesTrickleOneChunkPerWrite() async throws {
        try await withServer { h in
            h.server.route("/trickle", respond: .chunked(["a", "bb", "ccc"], every: .milliseconds(50)))
            h.server.route("/producer", respond: .stream(trailers: ["X-Done": "yes"]) { writer in
                try await writer.write("one")
                try await writer.sleep(for: .milliseconds(10))
                try await writer.write([])
                try await writer.write(Array("two".utf8))
            })
            let (sequence, continuation) = AsyncStream<[UInt8]>.makeStream()
            continuation.yield(Array("x".utf8))
            continuation.yield(Array("yz".utf8))
            continuation.finish()
            h.server.route("/sequence", respond: .stream(sequence))
            let c = try await h.connect()
            let clock = ContinuousClock()
            let start = clock.now
            try await c.send(get("/trickle"))
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n2\r\nbb\r\n3\r\nccc\r\n0\r\n\r\n")
            #expect(clock.now - start >= .milliseconds(100))
            try await c.send(get("/producer"))
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n3\r\ntwo\r\n0\r\nX-Done: yes\r\n\r\n")
            try await c.send(get("/sequence"))
            try await c.expect("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n2\r\nyz\r\n0\r\n\r\n")
        }
    }

    @Test func aStreamThatThrowsCutsTheBodyAndTheConnection() async throws {
        struct Boom: Error {}
        try await withServer { h in
            h.server.route("/broken", respond: .stream { writer in
                try await writer.write("partial")
                throw Boom()
            })
            let c = try await h.connect()
            try await c.send(get("/broken"))
            #expect(try await c.readToEnd() == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\npartial\r\n")
        }
    }

    @Test func closeDelimitedBodiesEndWithTheConnection() async throws {
        try await withServer { h in
            h.server.route("/close", respond: .closeDelimited("the end is the close"))
            let c = try await h.connect()
            try await c.send(get("/close"))
            #expect(try await c.readToEnd() == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe end is the close")
        }
    }

    @Test func http10ClientsGetChunkedBodiesCloseDelimited() async throws {
        try await withServer { h in
            h.server.route("/chunked", respond: .chunked(["hello", " world"], trailers: ["X-T": "1"]))
            h.server.route("/stream", respond: .chunked(["a", "b"], every: .milliseconds(1)))
            let c = try await h.connect()
            try await c.send("GET /chunked HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await c.readToEnd() == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello world")
            let s = try await h.connect()
            try await s.send("GET /stream HTTP/1.0\r\n\r\n")
            #expect(try await s.readToEnd() == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nab")
        }
    }

    @Test func theResponsesOwnHeadersWinOverTheAutomaticOnes() async throws {
        try await withServer { h in
            // A lying head: the server frames nothing itself when the response names a framing field.
            h.server.route("/own", respond: TestResponse(status: 200, reason: "Fine", headers: ["Content-Length": "3"], body: .bytes(Array("abc".utf8))))
            h.server.route("/closing", respond: TestResponse(headers: ["Connection": "close"], body: .bytes(Array("z".utf8))))
            let c = try await h.connect()
            try await c.send(get("/own"))
            try await c.expect("HTTP/1.1 200 Fine\r\nContent-Length: 3\r\n\r\nabc")
            try await c.send(get("/closing"))
            try await c.expect("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nz")
            #expect(try await c.isAtEnd())
        }
    }

    @Test func aHandlerThatThrowsGets500() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "broken" } }
        try await withServer { h in
            h.server.route("/throws") { _ in throw Broken() }
            let c = try await h.connect()
            try await c.send(get("/throws"))
            try await c.expect("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n\r\nhandler failed: broken\n")
            // The connection stays usable.
            try await c.send(get("/missing"))
            try await c.expect("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n\r\nnot found")
        }
    }
}
