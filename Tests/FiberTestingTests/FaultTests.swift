import FiberRuntime
import FiberTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct FaultTests {
    @Test func closeBeforeHeadSendsNothing() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.closeBeforeHead))
            let c = try await h.connect()
            try await c.send(get("/f"))
            #expect(try await c.readToEnd() == "")
            #expect(h.server.requestCount == 1)
        }
    }

    @Test func closeMidBodySendsTheHeadAndNBytes() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.closeMidBody(after: 3)))
            h.server.route("/chunked", respond: .chunked(["hello", "world"]).closingMidBody(after: 4))
            h.server.route("/short", respond: .ok("ab").closingMidBody(after: 10))
            let c = try await h.connect()
            try await c.send(get("/f"))
            #expect(try await c.readToEnd() == "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nxxx")
            let chunked = try await h.connect()
            try await chunked.send(get("/chunked"))
            #expect(try await chunked.readToEnd() == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nh")
            // A body shorter than the cut is sent whole, and the connection still closes.
            let short = try await h.connect()
            try await short.send(get("/short"))
            #expect(try await short.readToEnd() == okBytes("ab"))
        }
    }

    @Test func resetGivesTheClientECONNRESET() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.reset))
            let c = try await h.connect()
            try await c.send(get("/f"))
            await #expect { _ = try await c.readToEnd() } throws: { ($0 as? TransportError)?.kind == .connectionReset }
            #expect(h.server.requestCount == 1)
        }
    }

    @Test func resetMidBodyEndsWithAReset() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.resetMidBody(after: 3)))
            let c = try await h.connect()
            try await c.send(get("/f"))
            #expect(try await c.read(through: "\r\n\r\n") == "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n")
            #expect(try await c.read(count: 3) == Array("xxx".utf8))
            await #expect { _ = try await c.readToEnd() } throws: { ($0 as? TransportError)?.kind == .connectionReset }
        }
    }

    @Test func silentNeverAnswersUntilTheClientCloses() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.silent))
            let c = try await h.connect()
            try await c.send(get("/f"))
            try await h.server.waitForRequests(1)
            await #expect(throws: DeadlineExceeded.self) {
                try await h.loop.withTimeout(.milliseconds(200)) { [stream = c.stream] in try await stream.read() }
            }
            #expect(h.server.openConnectionCount == 1)
            await c.close()
            try await h.server.waitForOpenConnections(0)
        }
    }

    @Test func malformedFramingFaultsSendExactlyTheirBytes() async throws {
        try await withServer { h in
            let cases: [(TestFault, String)] = [
                (.malformedStatusLine, "HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n"),
                (.conflictingFraming, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
                (.conflictingContentLengths, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
                (.invalidChunkSize, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
            ]
            for (i, (fault, expected)) in cases.enumerated() {
                h.server.route("/f\(i)", respond: .fault(fault))
                let c = try await h.connect()
                try await c.send(get("/f\(i)"))
                #expect(try await c.readToEnd() == expected, "\(fault)")
            }
        }
    }

    @Test func oversizedHeadersSendAtLeastThatManyHeaderBytes() async throws {
        try await withServer { h in
            h.server.route("/f", respond: .fault(.oversizedHeaders(bytes: 100_000)))
            let c = try await h.connect()
            try await c.send(get("/f"))
            let all = try await c.readToEnd()
            #expect(all.hasPrefix("HTTP/1.1 200 OK\r\nX-Filler-0: aaaa"))
            #expect(all.hasSuffix("\r\nContent-Length: 0\r\n\r\n"))
            let fillerBytes = all.split(separator: "\r\n").filter { $0.hasPrefix("X-Filler-") }.reduce(0) { $0 + $1.utf8.count + 2 }
            #expect(fillerBytes >= 100_000)
            #expect(fillerBytes < 100_000 + 120)
        }
    }

    @Test func rawBytesGoOutExactlyAndCanKeepTheConnection() async throws {
        try await withServer { h in
            h.server.route("/raw", respond: .raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: false))
            h.server.route("/raw-close", respond: .raw([0xFF, 0x00, 0x0A], thenClose: true))
            let c = try await h.connect()
            try await c.send(get("/raw"))
            try await c.expect("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            try await c.send(get("/raw-close"))
            #expect(try await c.read(count: 10) == [0xFF, 0x00, 0x0A])
            #expect(try await c.isAtEnd())
            #expect(h.server.recordedRequests().map(\.connectionNumber) == [1, 1])
        }
    }

    @Test func delayedResponsesWaitFirst() async throws {
        try await withServer { h in
            h.server.route("/late", respond: .delay(.milliseconds(150), then: .ok("late")))
            h.server.route("/late-reset", respond: .fault(.reset).delayed(by: .milliseconds(100)))
            let c = try await h.connect()
            let clock = ContinuousClock()
            var start = clock.now
            try await c.send(get("/late"))
            try await c.expect(okBytes("late"))
            #expect(clock.now - start >= .milliseconds(150))
            start = clock.now
            try await c.send(get("/late-reset"))
            await #expect { _ = try await c.readToEnd() } throws: { ($0 as? TransportError)?.kind == .connectionReset }
            #expect(clock.now - start >= .milliseconds(100))
        }
    }

    @Test func drippingSendsAFewBytesAtATime() async throws {
        try await withServer { h in
            let response = TestResponse.ok("0123456789").dripping(bytes: 16, every: .milliseconds(20))
            h.server.route("/drip", respond: response)
            let c = try await h.connect()
            let expected = okBytes("0123456789")
            let clock = ContinuousClock()
            let start = clock.now
            try await c.send(get("/drip"))
            var received: [UInt8] = []
            var reads = 0
            while received.count < expected.utf8.count, let chunk = try await c.stream.read() {
                received += chunk
                reads += 1
            }
            #expect(String(decoding: received, as: UTF8.self) == expected)
            let pieces = (expected.utf8.count + 15) / 16
            #expect(clock.now - start >= .milliseconds(20) * (pieces - 1))
            #expect(reads >= 2)
            // The connection is still good afterwards.
            try await c.send(get("/drip"))
            try await c.expect(expected)
        }
    }
}
