import Fiber
import FiberTesting
import Foundation
import Metrics
import MetricsTestKit
import Testing

@Suite struct MetricsInterceptorTests {
    @Test func inMemoryCollectorSummaries() async throws {
        let collector = InMemoryMetricsCollector()
        let metrics = MetricsInterceptor(collector: collector)
        let (fiber, mock) = mockFiber([metrics])
        mock.stub { $0.url?.path == "/bad" ? .serverError(body: "oops") : .ok(body: "12345") }
        try await fiber.get("/a")
        try await fiber.post("/b", body: ["k": "v"])
        try await fiber.get("/c")
        try await fiber.get("/bad")

        let avg = await collector.averageDurationMs
        let rate = await collector.successRate
        let all = await collector.metrics  // [RequestMetrics]
        #expect(all.count == 4)
        #expect(rate == 0.75)
        #expect(avg >= 0 && avg == all.map(\.durationMs).reduce(0, +) / 4)
        let post = all[1]
        #expect(post.method == "POST" && post.url == "https://api.example.com/b" && post.statusCode == 200)
        #expect(post.requestSize == 9 && post.responseSize == 5 && post.success)
        #expect(!post.traceID.isEmpty && post.timestamp <= Date())
        #expect(all[3].statusCode == 500 && !all[3].success && all[3].responseSize == 4)
    }

    @Test func failuresRecordedWithStatusZero() async throws {
        let collector = InMemoryMetricsCollector()
        let (fiber, mock) = mockFiber([MetricsInterceptor(collector: collector)])
        mock.stubAll(.failure(FiberError.timeout))
        await expectFiberError({ if case .timeout = $0 { true } else { false } }) { try await fiber.get("/") }
        let all = await collector.metrics
        #expect(all.count == 1 && all[0].statusCode == 0 && !all[0].success)
        #expect(await collector.successRate == 0)
    }

    @Test func customCollector() async throws {
        actor Sink { var names: [String] = []; func add(_ n: String) { names.append(n) } }
        struct DataDogCollector: MetricsCollector {
            let sink: Sink
            func collect(_ metrics: RequestMetrics) async {
                // Send to DataDog, Prometheus, etc.
                await sink.add("http.request.duration method:\(metrics.method) status:\(metrics.statusCode) success:\(metrics.success)")
            }
        }
        let sink = Sink()
        let (fiber, mock) = mockFiber([MetricsInterceptor(collector: DataDogCollector(sink: sink))])
        mock.stubAll(.ok())
        try await fiber.get("/")
        #expect(await sink.names == ["http.request.duration method:GET status:200 success:true"])
    }

    @Test func swiftMetricsCollectorReports() async throws {
        let metrics = TestMetrics()
        let (fiber, mock) = mockFiber([MetricsInterceptor(collector: SwiftMetricsCollector(label: "api", factory: metrics))])
        mock.stub { $0.url?.path == "/bad" ? .serverError() : .ok(body: "abc") }
        try await fiber.get("/ok")
        try await fiber.get("/ok")
        try await fiber.get("/bad")
        let ok = try metrics.expectCounter("api.requests", [("method", "GET"), ("status", "200")])
        #expect(ok.totalValue == 2)
        let failed = try metrics.expectCounter("api.failures", [("method", "GET")])
        #expect(failed.totalValue == 1)
        let timer = try metrics.expectTimer("api.duration", [("method", "GET"), ("status", "500")])
        #expect(timer.values.count == 1)
        let sizes = try metrics.expectRecorder("api.response_size")
        #expect(sizes.values.map { Int($0) }.sorted() == [0, 3, 3])
    }
}
