import Fiber
import FiberTesting
import Foundation
import InMemoryTracing
import Instrumentation
import Testing
import Tracing

/// One in-memory tracer for the whole test process (the system is bootstrapped once).
enum SharedTracer {
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

extension FinishedInMemorySpan {
    func url(is url: String) -> Bool { attributes["url.full"]?.toSpanAttribute() == .string(url) }
}

@Suite struct DistributedTracingTests {
    @Test func requestsRunInAClientSpanAndCarryItsContext() async throws {
        let tracer = SharedTracer.tracer
        let (fiber, mock) = mockFiber()
        mock.stubAll(.status(201))
        let marker = "/traced-\(UUID().uuidString)"
        let response = try await fiber.post(marker)
        let spans = tracer.finishedSpans.filter { $0.url(is: "https://api.example.com" + marker) }
        let span = try #require(spans.first { $0.kind == .client })
        let request = try #require(spans.first { $0.kind == .internal })
        #expect(span.operationName == "POST" && span.parentSpanID == request.spanID)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == .string("POST"))
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(201))
        #expect(request.attributes["fiber.trace_id"]?.toSpanAttribute() == .string(response.traceID))
        // The instrument injected its own context fields (the attempt's span), and nothing of Fiber's.
        let sent = try #require(mock.lastRequest)
        #expect(sent.value(forHTTPHeaderField: InMemoryTracer.traceIDKey) == span.traceID)
        #expect(sent.value(forHTTPHeaderField: InMemoryTracer.spanIDKey) == span.spanID)
        #expect(sent.value(forHTTPHeaderField: "traceparent") == nil)
    }

    @Test func parentSpanOfTheCallerIsKept() async throws {
        let tracer = SharedTracer.tracer
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        let marker = "/child-\(UUID().uuidString)"
        let parentTraceID = try await withSpan("checkout") { parent in
            try await fiber.get(marker)
            return parent.context.inMemorySpanContext?.traceID
        }
        let child = try #require(tracer.finishedSpans.first { $0.attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com" + marker) })
        #expect(child.traceID == parentTraceID)
        #expect(child.parentSpanID != nil)
    }
}
