import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Metrics
import MetricsTestKit
import Testing

/// OpenTelemetry's HTTP client metrics through `SwiftMetricsCollector`, and the
/// pools' gauges, over the live transport into swift-metrics' `TestMetrics`.
@Suite struct OpenTelemetryMetricsTests {
    private func dimensions(_ method: String, _ status: Int?, port: Int, errorType: String?) -> [(String, String)] {
        var dimensions = [("http.request.method", method)]
        if let status { dimensions.append(("http.response.status_code", String(status))) }
        dimensions += [("server.address", "127.0.0.1"), ("server.port", String(port)), ("url.scheme", "http")]
        if let errorType { dimensions.append(("error.type", errorType)) }
        return dimensions
    }

    @Test func requestDurationHistogramInSeconds() async throws {
        let metrics = TestMetrics()
        try await withLiveServer { server, transport in
            server.route("/ok", respond: .ok("fine"))
            server.route("/gone", respond: .status(410))
            let port = try #require(URL(string: server.baseURL)?.port)
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [MetricsInterceptor(collector: SwiftMetricsCollector(factory: metrics))]
            }
            _ = try await fiber.get("/ok?page=1")
            _ = try await fiber.get("/ok")
            _ = try await fiber.post("/gone")
            let ok = try metrics.expectRecorder("http.client.request.duration", dimensions("GET", 200, port: port, errorType: nil))
            #expect(ok.values.count == 2 && ok.values.allSatisfy { $0 > 0 && $0 < 60 }, "seconds, not milliseconds")
            let gone = try metrics.expectRecorder("http.client.request.duration", dimensions("POST", 410, port: port, errorType: "410"))
            #expect(gone.values.count == 1)

            let refusing = RefusingPort()
            let nobody = Fiber("http://127.0.0.1:\(refusing.port)") {
                $0.transport = transport
                $0.interceptors = [MetricsInterceptor(collector: SwiftMetricsCollector(factory: metrics))]
            }
            await #expect(throws: FiberError.self) { try await nobody.get("/") }
            withExtendedLifetime(refusing) {}
            let failed = try metrics.expectRecorder("http.client.request.duration",
                                                    dimensions("GET", nil, port: refusing.port, errorType: "FiberError"))
            #expect(failed.values.count == 1)
        }
    }

    /// A collector that is handed `RequestMetrics` reports the same histogram.
    @Test func collectedMetricsReportTheHistogramToo() async throws {
        let metrics = TestMetrics()
        let collector = SwiftMetricsCollector(factory: metrics)
        await collector.collect(RequestMetrics(traceID: "t", method: "GET", url: "https://user:pw@api.example.com:8443/a?b=c",
                                               statusCode: 503, requestSize: 0, responseSize: 0, durationMs: 250,
                                               timestamp: Date(), success: false))
        let recorder = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("http.response.status_code", "503"), ("server.address", "api.example.com"),
            ("server.port", "8443"), ("url.scheme", "https"), ("error.type", "503"),
        ])
        #expect(recorder.values == [0.25])
    }

    /// A 304 that revalidates a cached response is the cache working, not a failure.
    @Test func aRevalidating304IsNoFailure() async throws {
        let metrics = TestMetrics()
        let measured = InMemoryMetricsCollector()
        try await withLiveServer { server, transport in
            server.route("/etag") { request in
                request.header("If-None-Match") == "\"abc\""
                    ? TestResponse(status: 304, headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=0"])
                    : TestResponse(status: 200, headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=0"], body: .bytes(Array("payload".utf8)))
            }
            let port = try #require(URL(string: server.baseURL)?.port)
            // Innermost, the interceptors see what the server sent: 200, then 304.
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [CacheInterceptor(), MetricsInterceptor(collector: SwiftMetricsCollector(label: "api", factory: metrics)),
                                   MetricsInterceptor(collector: measured)]
            }
            #expect(try await fiber.get("/etag").text == "payload")
            #expect(try await fiber.get("/etag").text == "payload")
            let revalidated = try metrics.expectRecorder("http.client.request.duration", dimensions("GET", 304, port: port, errorType: nil))
            #expect(revalidated.values.count == 1)
            #expect(throws: (any Error).self) { try metrics.expectCounter("api.failures", [("method", "GET")]) }
            let all = await measured.metrics
            #expect(all.map(\.statusCode) == [200, 304] && all.allSatisfy { $0.success && $0.errorType == nil })
        }
    }

    @Test func poolGaugesPerOrigin() async throws {
        let metrics = TestMetrics()
        try await withLiveServer { server, transport in
            server.route("/", respond: .ok())
            let port = try #require(URL(string: server.baseURL)?.port)
            let gauges = ConnectionPoolGauges(transport: transport, factory: metrics)
            _ = try await Fiber(server.baseURL) { $0.transport = transport }.get("/")
            await gauges.report()
            let origin = [("server.address", "127.0.0.1"), ("server.port", String(port)), ("url.scheme", "http")]
            func value(_ label: String, _ extra: [(String, String)] = []) throws -> Double? {
                try metrics.expectGauge(label, extra + origin).lastValue
            }
            #expect(try value("fiber.http.client.pool.open") == 1 && value("fiber.http.client.pool.idle") == 1)
            #expect(try value("fiber.http.client.pool.leased") == 0 && value("fiber.http.client.pool.waiting") == 0)
            #expect(try value("http.client.open_connections", [("http.connection.state", "idle")]) == 1)
            #expect(try value("http.client.open_connections", [("http.connection.state", "active")]) == 0)
            // Once the connections are gone, the origin is reported once more, at zero.
            await transport.shutdown()
            try await waitUntil("the pool empties") { await transport.client.statistics().open == 0 }
            await gauges.report()
            #expect(try value("fiber.http.client.pool.open") == 0 && value("fiber.http.client.pool.idle") == 0)
        }
    }

    /// A client with `http` settings has pools of its own; its gauges read those, not the shared transport's.
    @Test func poolGaugesOfAClientWithItsOwnTransport() async throws {
        let metrics = TestMetrics()
        let server = try await TestHTTPServer.start()
        server.route("/", respond: .ok())
        let port = try #require(URL(string: server.baseURL)?.port)
        let fiber = Fiber(server.baseURL) { $0.http.maxConnectionsPerHost = 2 }
        let gauges = try #require(ConnectionPoolGauges(fiber: fiber, factory: metrics))
        _ = try await fiber.get("/")
        await gauges.report()
        let origin = [("server.address", "127.0.0.1"), ("server.port", String(port)), ("url.scheme", "http")]
        #expect(try metrics.expectGauge("fiber.http.client.pool.idle", origin).lastValue == 1)
        #expect(ConnectionPoolGauges(fiber: Fiber(server.baseURL) { $0.transport = MockTransport() }) == nil)
        _ = await fiber.shutdown(gracePeriod: .seconds(1))
        await server.shutdown()
    }
}
