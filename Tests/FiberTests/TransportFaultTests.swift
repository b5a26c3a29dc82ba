import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Faults of the transport, seen through the `Fiber` API: each reaches the
/// caller as a `FiberError`, collected or streamed, without a stall.
@Suite("Transport faults through Fiber", .timeLimit(.minutes(1)))
struct TransportFaultTests {
    /// A revalidation answered by a 304 that declares the representation's length.
    @Test func cacheRevalidationAnsweredBy304WithContentLength() async throws {
        try await withLiveServer { server, transport in
            server.route("/doc") { request in
                request.header("If-None-Match") == "\"v1\""
                    ? .raw("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nCache-Control: no-cache\r\nContent-Length: 1234\r\n\r\n", thenClose: false)
                    : TestResponse.ok("body").withHeader("ETag", "\"v1\"").withHeader("Cache-Control", "no-cache")
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.interceptors = [CacheInterceptor()] }
            _ = try await fiber.get("/doc")
            let start = ContinuousClock.now
            let revalidated = try await fiber.get("/doc")
            #expect(revalidated.statusCode == 200 && revalidated.text == "body")
            #expect(ContinuousClock.now - start < .seconds(5), "the 304 ended at its head")
            #expect(server.recordedRequests().count == 2 && server.connectionCount == 1)
        }
    }

    @Test func aCompressionBombIsAFiberErrorCollectedOrStreamed() async throws {
        let bomb = CompressionBomb.gzip(inflatedSize: 64 << 20)
        try await withLiveServer { server, transport in
            server.route("/bomb", respond: .bytes(bomb, headers: ["Content-Encoding": "gzip"]))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ Self.isDecompressionFailure($0) }) { try await fiber.get("/bomb") }
            let streamed = try await fiber.stream(FiberRequest(url: server.url("/bomb")))
            do {
                for try await _ in streamed.body {}
                Issue.record("the streamed bomb must fail")
            } catch let error as FiberError {
                #expect(Self.isDecompressionFailure(error), "\(error)")
            }
        }
    }

    @Test func aDrippedHeadIsATimeout() async throws {
        try await withLiveServer(configure: { $0.responseHeadTimeout = .milliseconds(300) }) { server, transport in
            server.route("/drip", respond: TestResponse.ok("x").dripping(bytes: 1, every: .milliseconds(50)))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ if case .timeout = $0 { true } else { false } }) { try await fiber.get("/drip") }
        }
    }

    @Test func anUnsolicitedSwitchIsANetworkError() async throws {
        try await withLiveServer { server, transport in
            server.route("/switch", respond: .raw("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", thenClose: false))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({
                if case .networkError(let error as HTTPClientError) = $0 { error.kind == .malformedResponse } else { false }
            }) { try await fiber.get("/switch") }
        }
    }

    static func isDecompressionFailure(_ error: FiberError) -> Bool {
        if case .networkError(let underlying as HTTPClientError) = error { underlying.kind == .decompressionFailed } else { false }
    }
}
