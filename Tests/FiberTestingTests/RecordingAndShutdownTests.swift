import FiberRuntime
import FiberTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct RecordingAndShutdownTests {
    @Test func requestsAreRecordedInOrderWithTheirConnections() async throws {
        try await withServer { h in
            h.server.setDefaultHandler { _ in .ok() }
            let a = try await h.connect()
            let b = try await h.connect()
            try await a.send(get("/1"))
            _ = try await a.readResponse()
            try await b.send("POST /2 HTTP/1.1\r\nContent-Length: 1\r\n\r\nx")
            _ = try await b.readResponse()
            try await a.send(get("/3?k=v", "X-Test: yes\r\n"))
            _ = try await a.readResponse()
            let requests = try await h.server.waitForRequests(3)
            #expect(requests.map(\.target) == ["/1", "/2", "/3?k=v"])
            #expect(requests.map(\.sequenceNumber) == [1, 2, 3])
            #expect(requests.map(\.connectionNumber) == [1, 2, 1])
            #expect(requests.map(\.numberOnConnection) == [1, 1, 2])
            #expect(requests[1].body == [UInt8(ascii: "x")])
            #expect(requests[2].header("x-test") == "yes")
            #expect(requests[0].receivedAt <= requests[2].receivedAt)
            #expect(h.server.requestCount == 3)
            #expect(h.server.connectionCount == 2)
            #expect(h.server.openConnectionCount == 2)
            #expect(h.server.lastRequest?.target == "/3?k=v")
        }
    }

    @Test func recordingCanBeTurnedOffWhileCountingGoesOn() async throws {
        var configuration = TestHTTPServer.Configuration()
        configuration.recordsRequests = false
        try await withServer(configuration: configuration) { h in
            let c = try await h.connect()
            for _ in 0..<3 {
                try await c.send(get("/x"))
                _ = try await c.readResponse()
            }
            #expect(h.server.requestCount == 3)
            #expect(h.server.recordedRequests().isEmpty)
        }
    }

    @Test func shutdownClosesEveryConnectionAndLeavesNoHandleOpen() async throws {
        let serverGroup = EventLoopGroup(loopCount: 1, name: "server")
        let clientGroup = EventLoopGroup(loopCount: 1, name: "client")
        let server = try await TestHTTPServer.start(on: serverGroup.loops[0])
        server.route("/a", respond: .ok("a"))
        server.route("/silent", respond: .fault(.silent))
        server.route("/stream", respond: .stream { writer in
            while true {
                try await writer.write("tick")
                try await writer.sleep(for: .milliseconds(20))
            }
        })
        server.route("/sleepy") { _ in
            try await Task.sleep(for: .seconds(60))
            return .ok()
        }
        let clientLoop = clientGroup.loops[0]
        let idle = try await RawClient.connect(port: server.port, on: clientLoop)
        try await idle.send(get("/a"))
        try await idle.expect(okBytes("a"))
        let silent = try await RawClient.connect(port: server.port, on: clientLoop)
        try await silent.send(get("/silent"))
        let streaming = try await RawClient.connect(port: server.port, on: clientLoop)
        try await streaming.send(get("/stream"))
        _ = try await streaming.read(through: "tick")
        let sleepy = try await RawClient.connect(port: server.port, on: clientLoop)
        try await sleepy.send(get("/sleepy"))
        let partial = try await RawClient.connect(port: server.port, on: clientLoop)
        try await partial.send("GET /a HTTP/1.1\r\nHost: te")
        let fresh = try await RawClient.connect(port: server.port, on: clientLoop)
        try await server.waitForRequests(4)
        try await server.waitForOpenConnections(6)

        // Twice at once: both return when everything is closed.
        async let first: Void = server.shutdown()
        async let second: Void = server.shutdown()
        _ = await (first, second)
        await server.shutdown()
        #expect(server.isShutDown)
        #expect(server.openConnectionCount == 0)
        // The server's loop holds nothing, while the clients are still open.
        try await expectNoOpenHandles(serverGroup)

        for client in [idle, silent, streaming, sleepy, partial, fresh] {
            // Every client sees its connection end (a FIN, or a reset for unread input).
            do {
                _ = try await client.readToEnd()
            } catch let error as TransportError where error.kind == .connectionReset {}
            await client.close()
        }
        await #expect { _ = try await RawClient.connect(port: server.port, on: clientLoop) } throws: {
            ($0 as? TransportError)?.kind == .connectionRefused
        }
        try await expectNoOpenHandles(clientGroup)
        try await serverGroup.shutdown()
        try await clientGroup.shutdown()
    }

    @Test func shuttingTheGroupDownFirstStillLetsTheServerShutDown() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "test")
        let server = try await TestHTTPServer.start(on: group.loops[0])
        let client = try await RawClient.connect(port: server.port, on: group.loops[0])
        try await client.send(get("/x"))
        _ = try await client.readResponse()
        try await group.shutdown()
        await server.shutdown()
        #expect(server.openConnectionCount == 0)
    }
}
