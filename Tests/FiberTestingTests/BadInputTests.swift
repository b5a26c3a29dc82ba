import FiberRuntime
import FiberTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct BadInputTests {
    /// Sends `request`, expects a response with `status` and `Connection: close`, then the end of the stream.
    private func expectRejected(_ request: String, status: String, on h: Harness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let c = try await h.connect()
        try await c.send(request)
        let response = try await c.readResponse()
        #expect(response.hasPrefix("HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\n"), sourceLocation: sourceLocation)
        #expect(response.contains("\r\nConnection: close\r\n\r\n"), sourceLocation: sourceLocation)
        #expect(try await c.isAtEnd(), sourceLocation: sourceLocation)
        await c.close()
    }

    @Test func malformedRequestsGet400AndAClosedConnection() async throws {
        try await withServer { h in
            h.server.setDefaultHandler { _ in .ok("fine") }
            try await expectRejected("GARBAGE\r\n\r\n", status: "400 Bad Request", on: h)
            try await expectRejected("GET / HTTP/1.1\r\nBad Header\r\n\r\n", status: "400 Bad Request", on: h)
            try await expectRejected("GET / HTTP/9.9\r\n\r\n", status: "400 Bad Request", on: h)
            try await expectRejected("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: "400 Bad Request", on: h)
            try await expectRejected("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", status: "400 Bad Request", on: h)
            try await expectRejected("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", status: "400 Bad Request", on: h)
            #expect(h.server.badRequestCount == 6)
            #expect(h.server.requestCount == 0)
            // The server goes on serving.
            let c = try await h.connect()
            try await c.send(get("/"))
            try await c.expect(okBytes("fine"))
        }
    }

    @Test func aBadRequestAfterAGoodOneOnTheSameConnection() async throws {
        try await withServer { h in
            h.server.setDefaultHandler { _ in .ok("fine") }
            let c = try await h.connect()
            try await c.send(get("/") + "NOT HTTP AT ALL\r\n\r\n")
            try await c.expect(okBytes("fine"))
            let response = try await c.readResponse()
            #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(try await c.isAtEnd())
        }
    }

    @Test func oversizedHeadersGet431AndOversizedBodies413() async throws {
        var configuration = TestHTTPServer.Configuration()
        configuration.maxRequestHeaderBytes = 1024
        configuration.maxRequestBodyBytes = 10
        try await withServer(configuration: configuration) { h in
            h.server.setDefaultHandler { _ in .ok("fine") }
            let big = "X-Big: \(String(repeating: "b", count: 2000))\r\n"
            try await expectRejected(get("/", big), status: "431 Request Header Fields Too Large", on: h)
            try await expectRejected("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world", status: "413 Content Too Large", on: h)
            try await expectRejected("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nb\r\nhello world\r\n0\r\n\r\n", status: "413 Content Too Large", on: h)
            #expect(h.server.badRequestCount == 3)
            let c = try await h.connect()
            try await c.send("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nhelloworld")
            try await c.expect(okBytes("fine"))
        }
    }

    @Test func upgradeAndConnectRequestsAreAnsweredInHTTP1AndClosed() async throws {
        try await withServer { h in
            h.server.route("/ws", respond: .text("no upgrade here", status: 426))
            let c = try await h.connect()
            try await c.send(get("/ws", "Connection: Upgrade\r\nUpgrade: websocket\r\n"))
            #expect(try await c.readToEnd()
                == "HTTP/1.1 426 Upgrade Required\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 15\r\nConnection: close\r\n\r\nno upgrade here")
            let connect = try await h.connect()
            try await connect.send("CONNECT example.invalid:443 HTTP/1.1\r\nHost: example.invalid:443\r\n\r\n")
            #expect(try await connect.readToEnd()
                == "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found")
            #expect(h.server.recordedRequests().map(\.path) == ["/ws", "example.invalid:443"])
        }
    }

    @Test func randomBytesNeverCrashTheServer() async throws {
        try await withServer { h in
            h.server.setDefaultHandler { _ in .ok("fine") }
            var generator = SplitMix64(seed: 42)
            for round in 0..<60 {
                let c = try await h.connect()
                var junk = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if round % 3 == 0 { junk = Array("GET /".utf8) + junk }
                if round % 3 == 1 { junk = Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + junk }
                try await c.send(junk + Array("\r\n\r\n".utf8))
                // The client half-closes, so that an incomplete request ends too.
                try await c.stream.shutdownOutput()
                do {
                    _ = try await c.readToEnd()
                } catch let error as TransportError where error.kind == .connectionReset {
                    // The server closed with input unread; the kernel may answer with a reset.
                }
                await c.close()
            }
            let c = try await h.connect()
            try await c.send(get("/"))
            try await c.expect(okBytes("fine"))
            try await h.server.waitForOpenConnections(1)
        }
    }

    @Test func clientsThatVanishMidRequestOrMidResponseAreHarmless() async throws {
        try await withServer { h in
            h.server.route("/stream", respond: .stream { writer in
                for _ in 0..<1000 {
                    try await writer.write(Array(repeating: UInt8(ascii: "s"), count: 1000))
                    try await writer.sleep(for: .milliseconds(1))
                }
            })
            h.server.setDefaultHandler { _ in .ok("fine") }
            let midRequest = try await h.connect()
            try await midRequest.send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly a bit")
            try await h.server.waitForOpenConnections(1)
            await midRequest.close()

            let midResponse = try await h.connect()
            try await midResponse.send(get("/stream"))
            _ = try await midResponse.read(count: 5000)
            await midResponse.stream.reset()

            try await h.server.waitForOpenConnections(0)
            #expect(h.server.requestCount == 1)
            let c = try await h.connect()
            try await c.send(get("/"))
            try await c.expect(okBytes("fine"))
        }
    }
}
