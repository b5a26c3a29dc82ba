import FiberRuntime
import FiberTesting
import Synchronization
import Testing

@Suite("HTTP client connection pool", .timeLimit(.minutes(1)))
struct ClientPoolTests {
    @Test func connectionsPerHostAreLimitedAndWaitersServed() async throws {
        try await withClient(configure: { $0.maxConnectionsPerHost = 2 }) { client, server in
            server.route("/") { _ in .delay(.milliseconds(20), then: .ok("x")) }
            let url = server.url("/")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await client.get(url).status } }
                for try await status in group { #expect(status == 200) }
            }
            #expect(server.connectionCount == 2)
            #expect(await client.statistics() == ConnectionPoolStatistics(open: 2, idle: 2))
        }
    }

    @Test func waitingForAConnectionHasADeadline() async throws {
        try await withClient(configure: { $0.maxConnectionsPerHost = 1 }) { client, server in
            // The slow answer takes far longer than any scheduling delay of a loaded machine;
            // it is cancelled once the waiter has timed out.
            server.route("/slow", respond: .delay(.seconds(30), then: .ok()))
            server.route("/fast", respond: .ok())
            let slow = Task { try await client.get(server.url("/slow")) }
            try await server.waitForRequests(1)
            var options = HTTPClient.RequestOptions()
            options.timeout = .milliseconds(100)
            await expectHTTPError(.deadlineExceeded) { _ = try await client.get(server.url("/fast"), options: options) }
            slow.cancel()
            await expectHTTPError(.cancelled) { _ = try await slow.value }
            // The cancelled exchange closed its connection; the pool serves the next request on a new one.
            let after = try await client.get(server.url("/fast"))
            #expect(after.status == 200)
        }
    }

    @Test func idleConnectionsTimeOut() async throws {
        let idleTimeout = Duration.seconds(4)
        try await withClient(configure: { $0.idleTimeout = idleTimeout }) { client, server in
            server.route("/", respond: .ok())
            let start = ContinuousClock.now
            _ = try await client.get(server.url("/"))
            let idle = await client.statistics().idle
            // The connection is owed to the pool only while it has been idle for less than the timeout;
            // under a sanitizer on a loaded machine one request has taken longer than that.
            if ContinuousClock.now - start < idleTimeout { #expect(idle == 1) }
            try await server.waitUntil(timeout: .seconds(20)) { $0.openConnectionCount == 0 }
            #expect(await client.statistics().open == 0)
            _ = try await client.get(server.url("/"))
            #expect(server.connectionCount == 2)
        }
    }

    @Test func connectionsRetireAfterTheirLifetime() async throws {
        let lifetime = Duration.seconds(3)
        try await withClient(configure: { $0.maxConnectionLifetime = lifetime }) { client, server in
            server.route("/", respond: .ok())
            let start = ContinuousClock.now
            _ = try await client.get(server.url("/"))
            _ = try await client.get(server.url("/"))
            let opened = server.connectionCount
            // Reuse is owed only while the first connection is young: under a sanitizer on a loaded
            // machine two requests have taken longer than the lifetime.
            if ContinuousClock.now - start < lifetime { #expect(opened == 1) }
            // Every connection open now is at least this old by the next request: it must retire.
            try await Task.sleep(for: lifetime + .milliseconds(100))
            _ = try await client.get(server.url("/"))
            #expect(server.connectionCount == opened + 1)
        }
    }

    @Test func anIdleConnectionTheServerClosedIsNotUsed() async throws {
        try await withClient { client, server in
            // A keep-alive response, then the server closes: the client sees the FIN while idle.
            server.route("/", respond: .raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: true))
            _ = try await client.get(server.url("/"))
            try await server.waitUntil { $0.openConnectionCount == 0 }
            #expect(try await statistics(of: client) { $0.open == 0 }.open == 0)
            let value13 = try await client.get(server.url("/")).body
            #expect(value13 == "ok".bytes)
            #expect(server.connectionCount == 2)
        }
    }

    @Test func aReusedConnectionThatDiesIsRetriedOnceForIdempotentRequests() async throws {
        try await withClient { client, server in
            let calls = Atomic(0)
            server.setDefaultHandler { _ in
                // The second request finds its (reused) connection closed before any byte of the answer.
                calls.add(1, ordering: .relaxed).newValue == 2 ? .fault(.closeBeforeHead) : .ok("fine")
            }
            let value14 = try await client.get(server.url("/a")).body
            #expect(value14 == "fine".bytes)
            let retried = try await client.get(server.url("/b"))
            #expect(retried.body == "fine".bytes && !retried.timing.reusedConnection)
            #expect(server.connectionCount == 2 && calls.load(ordering: .relaxed) == 3)
        }
    }

    @Test func aNonIdempotentRequestThatWasSentIsNotRetried() async throws {
        try await withClient { client, server in
            let calls = Atomic(0)
            server.setDefaultHandler { _ in calls.add(1, ordering: .relaxed).newValue == 2 ? .fault(.closeBeforeHead) : .ok("fine") }
            _ = try await client.get(server.url("/a"))
            await expectHTTPError(.connectionClosed) {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/b"), method: "POST", body: .string("once")))
            }
            #expect(calls.load(ordering: .relaxed) == 2)
        }
    }

    @Test func shutdownFailsWaitersAndLaterRequests() async throws {
        try await withClient(configure: { $0.maxConnectionsPerHost = 1 }) { client, server in
            // The first answer waits for the test to open the gate, so no timing decides the order.
            let (gate, open) = AsyncStream<Void>.makeStream()
            server.route("/slow") { _ in
                for await _ in gate {}
                return .ok()
            }
            let first = Task { try await client.get(server.url("/slow")) }
            try await server.waitForRequests(1)
            let waiter = Task { try await client.get(server.url("/slow")) }
            // Ordered by the pool's own state, not by a sleep: the second request is queued.
            let queued = try await statistics(of: client, within: .seconds(20)) { $0.waiting == 1 }
            try #require(queued.waiting == 1)
            await client.shutdown()
            await expectHTTPError(.shutdown) { _ = try await waiter.value }
            open.finish()
            let value15 = try await first.value.status
            #expect(value15 == 200, "a request in flight finishes")
            await expectHTTPError(.shutdown) { _ = try await client.get(server.url("/slow")) }
        }
    }

    @Test func thousandConcurrentRequestsShareThePool() async throws {
        try await withClient(configure: { $0.maxConnectionsPerHost = 16 }) { client, server in
            server.route("/", respond: .ok("hi"))
            let url = server.url("/")
            let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<1000 { group.addTask { try await client.get(url).body == "hi".bytes } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(ok == 1000)
            #expect(server.connectionCount <= 16)
        }
    }
}
