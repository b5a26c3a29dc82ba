import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import OTel
import ServiceLifecycle
import Testing
import Tracing

/// Fiber's spans through swift-otel, exported over OTLP/HTTP (JSON) to a receiver
/// on 127.0.0.1: the names, kinds, attributes and parentage a collector sees, and
/// the trace ID that responses carry and the server receives.
///
/// swift-otel bootstraps the process's tracing once, so this package holds this one test.
@Suite struct OTelExportTests {
    @Test func spansArriveAtTheCollector() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "otel-export-test")
        let receiver = try await OTLPReceiver(on: group.loops[0])
        let service = try await TestHTTPServer.start(on: group.loops[0])
        service.route("/hello") { request in .ok(request.header("traceparent") ?? "") }
        let calls = Attempts()
        service.route("/flaky") { _ in await calls.next() == 1 ? .status(503) : .ok("fine") }

        var configuration = OTel.Configuration.default
        configuration.serviceName = "fiber-otel-export-test"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.diagnosticLogLevel = .error
        configuration.traces.sampler = .alwaysOn
        configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(50)
        configuration.traces.otlpExporter.endpoint = receiver.endpoint
        configuration.traces.otlpExporter.protocol = .httpJSON
        configuration.traces.otlpExporter.compression = .none
        let observability = try OTel.bootstrap(configuration: configuration)
        let exporting = Task { try await observability.run() }

        // Made after the bootstrap, as a service does: the client finds the tracer installed.
        let transport = HTTPTransport(eventLoopGroup: group)
        let fiber = Fiber(service.baseURL) {
            $0.transport = transport
            $0.interceptors = [RetryInterceptor(maxRetries: 2, baseDelay: 0)]
        }
        let hello = try await fiber.get("/hello?name=otel")
        let flaky = try await fiber.get("/flaky")
        #expect(flaky.text == "fine")

        // The server saw the tracer's sampled context, whose trace ID the response carries.
        let sent = hello.text.split(separator: "-").map(String.init)
        #expect(sent.count == 4 && sent[1] == hello.traceID && sent[3] == "01", "\(hello.text)")

        try await waitUntil("the spans reach the receiver", timeout: .seconds(30)) {
            receiver.spans.filter { $0.attributes["url.full"]?.hasSuffix("/flaky") == true }.count >= 3
        }
        let port = String(try #require(URL(string: service.baseURL)?.port))
        let helloSpans = receiver.spans.filter { $0.attributes["url.full"] == service.baseURL + "/hello?name=otel" }
        let attempt = try #require(helloSpans.first { $0.kind == 3 })
        let request = try #require(helloSpans.first { $0.kind == 1 })
        #expect(attempt.name == "GET" && request.name == "GET")
        #expect(attempt.traceID == hello.traceID && attempt.parentSpanID == request.spanID)
        #expect(sent.count == 4 && sent[2] == attempt.spanID, "the server's parent is the attempt's span")
        #expect(attempt.attributes["http.request.method"] == "GET" && attempt.attributes["url.scheme"] == "http")
        #expect(attempt.attributes["server.address"] == "127.0.0.1" && attempt.attributes["server.port"] == port)
        #expect(attempt.attributes["http.response.status_code"] == "200" && !attempt.isError)

        let flakySpans = receiver.spans.filter { $0.attributes["url.full"]?.hasSuffix("/flaky") == true }
        let flakyRequest = try #require(flakySpans.first { $0.kind == 1 })
        let attempts = flakySpans.filter { $0.kind == 3 }.sorted { ($0.attributes["http.request.resend_count"] ?? "0") < ($1.attributes["http.request.resend_count"] ?? "0") }
        #expect(attempts.count == 2 && attempts.allSatisfy { $0.parentSpanID == flakyRequest.spanID })
        #expect(attempts.map { $0.attributes["http.response.status_code"] } == ["503", "200"])
        #expect(attempts.map { $0.attributes["http.request.resend_count"] } == [nil, "1"])
        #expect(attempts.first?.attributes["error.type"] == "503" && attempts.first?.isError == true)

        exporting.cancel()
        _ = await exporting.result
        await transport.shutdown()
        await service.shutdown()
        await receiver.server.shutdown()
        try await group.shutdown()
    }
}

/// Counts the calls of a route.
private actor Attempts {
    private var count = 0

    func next() -> Int {
        count += 1
        return count
    }
}
