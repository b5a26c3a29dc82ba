import Fiber
import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// `Fiber.webSocket` runs the client's interceptors over the real opening
/// handshake: they see the server's own answer (its 101, or its refusal with
/// status and body), and an upgrade is never shared by deduplication nor
/// answered or stored by the cache.
@Suite("WebSocket upgrade through interceptors", .timeLimit(.minutes(1)))
struct WebSocketUpgradeInterceptorTests {
    @Test func metricsAndLoggingRecordTheServersRealSwitchingProtocols() async throws {
        let server = try await TestWebSocketServer.start()
        let metrics = InMemoryMetricsCollector()
        let logs = TestTraceCollector()
        let seen = Locked<[(Int, HTTPHeaders)]>([])
        let recorder = AnyInterceptor("recorder") { request, next in
            let response = try await next(request)
            seen.withLock { $0.append((response.statusCode, response.headers)) }
            return response
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") {
            $0.interceptors = [LoggingInterceptor(logger: logs.logger()), MetricsInterceptor(collector: metrics), recorder]
        }
        let socket = try await fiber.webSocket("/chat")
        try await expectEcho("hello", on: socket)

        #expect(await metrics.metrics.map(\.statusCode) == [101])
        #expect(logs.messages.contains { $0.contains("[← 101") })
        let (status, headers) = try #require(seen.withLock { $0.first })
        #expect(status == 101)
        // Only the server's answer carries the accept value computed from the key that went out.
        let key = try #require(server.requests.first?.headers["Sec-WebSocket-Key"])
        #expect(headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(for: key))
        socket.close()
        await server.shutdown()
    }

    @Test func metricsAndLoggingRecordTheServersRefusal() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(refuse: (status: 403, body: "not you")))
        let metrics = InMemoryMetricsCollector()
        let logs = TestTraceCollector()
        let bodies = Locked<[Data]>([])
        let recorder = AnyInterceptor("recorder") { request, next in
            let response = try await next(request)
            bodies.withLock { $0.append(response.data) }
            return response
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") {
            $0.interceptors = [LoggingInterceptor(logger: logs.logger()), MetricsInterceptor(collector: metrics), recorder]
        }
        let ws = await refusal { try await fiber.webSocket("/chat") }
        #expect(ws?.kind == .upgradeFailed && ws?.status == 403 && ws?.body == Array("not you".utf8))
        #expect(await metrics.metrics.map(\.statusCode) == [403])
        #expect(logs.messages.contains { $0.contains("[← 403") })
        #expect(!logs.messages.contains { $0.contains("[← 101") })
        #expect(bodies.withLock { $0 } == [Data("not you".utf8)])
        await server.shutdown()
    }

    @Test func twoConcurrentUpgradesUnderDeduplicationBothOpen() async throws {
        try await twoConcurrentUpgradesOpen(sharing: DeduplicationInterceptor())
    }

    @Test func twoConcurrentUpgradesUnderTheCacheBothOpen() async throws {
        try await twoConcurrentUpgradesOpen(sharing: CacheInterceptor())
    }

    /// A fresh cached `GET` of the same URL does not answer the upgrade, and the upgrade stores nothing.
    @Test func theCacheNeitherAnswersNorStoresAnUpgrade() async throws {
        let server = try await TestWebSocketServer.start()
        let cache = CacheInterceptor(ttl: 300)
        // Plain GETs of the page are answered here (a cacheable 200); upgrades go on to the server.
        let page = AnyInterceptor("page") { request, next in
            guard request.headers["Upgrade"] == nil else { return try await next(request) }
            return FiberResponse(data: Data("page".utf8), statusCode: 200, headers: ["Cache-Control": "max-age=300"],
                                 request: request, duration: 0, traceID: "")
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") { $0.interceptors = [cache, page] }
        #expect(try await fiber.get("/chat").statusCode == 200)
        #expect(await cache.count == 1)
        let socket = try await fiber.webSocket("/chat")
        try await expectEcho("not from the cache", on: socket)
        #expect(await cache.count == 1)
        socket.close()
        await server.shutdown()
    }

    /// An interceptor that fails after the server's 101 leaves no connection open behind it.
    @Test func aConnectionOpenedForAPipelineThatThenFailsIsClosed() async throws {
        struct Unwanted: Error {}
        let server = try await TestWebSocketServer.start()
        let failing = AnyInterceptor("failing") { request, next in
            _ = try await next(request)
            throw Unwanted()
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") { $0.interceptors = [failing] }
        await #expect(throws: Unwanted.self) { _ = try await fiber.webSocket("/chat") }
        // The server's connection ends once the client closes it; `shutdown` ends it otherwise.
        let ended = Locked(false)
        let waiter = Task {
            await server.waitForConnectionsToEnd()
            ended.withLock { $0 = true }
        }
        try? await waitUntil(timeout: .seconds(10)) { ended.withLock { $0 } }
        #expect(ended.withLock { $0 }, "the client closed the connection it opened")
        await server.shutdown()
        await waiter.value
        var frames: [WebSocketFrame] = []
        for await frame in server.clientFrames { frames.append(frame) }
        #expect(frames.map(\.opcode) == [.close])
    }

    /// Two `webSocket()` calls to one path, held together below `sharing` until
    /// both passed it (or, if it shared them, until it is plain that only one did).
    private func twoConcurrentUpgradesOpen(sharing: any Interceptor) async throws {
        let server = try await TestWebSocketServer.start()
        let gate = TestGate()
        let entered = Locked(0)
        let counter = AnyInterceptor("counter") { request, next in
            entered.withLock { $0 += 1 }
            return try await next(request)
        }
        let hold = AnyInterceptor("hold") { request, next in
            await gate.wait()
            return try await next(request)
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") { $0.interceptors = [counter, sharing, hold] }
        async let first = fiber.webSocket("/chat")
        async let second = fiber.webSocket("/chat")
        try await waitUntil { entered.withLock { $0 } == 2 }
        try? await waitUntil(timeout: .seconds(2)) { await gate.waiting == 2 }
        await gate.open()
        let sockets = try await [first, second]
        try await expectEcho("one", on: sockets[0])
        try await expectEcho("two", on: sockets[1])
        #expect(server.acceptedCount == 2)
        for socket in sockets { socket.close() }
        await server.shutdown()
    }
}

/// Sends `text` and expects the echo server to send it back.
private func expectEcho(_ text: String, on socket: WebSocketConnection) async throws {
    try await socket.send(.text(text))
    var events = socket.events.makeAsyncIterator()
    while let event = await events.next() {
        if case .message(let message) = event {
            #expect(message == .text(text))
            return
        }
    }
    Issue.record("the connection ended before the echo of \(text)")
}
