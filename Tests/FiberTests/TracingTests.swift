@testable import Fiber
import FiberTesting
import Foundation
import InMemoryTracing
import Testing

/// The README's "Distributed Tracing" section, and W3C propagation.
@Suite struct TracingTests {
    @Test func everyResponseHasATraceID() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        let response = try await fiber.get("/users")
        print(response.traceID)  // "A1B2C3D4-..."
        #expect(UUID(uuidString: response.traceID) != nil)
        let other = try await fiber.get("/users")
        #expect(other.traceID != response.traceID)
    }

    @Test func interceptorsSeeTheTraceID() async throws {
        let seen = TestTraceCollector()
        let logger = AnyInterceptor("logger") { request, next in
            let traceID = TraceContext.traceID
            print("[\(traceID)] \(request.httpMethod) \(request.url)")
            seen.logger().log(.info, traceID)
            return try await next(request)
        }
        let (fiber, mock) = mockFiber([logger])
        mock.stubAll(.ok())
        let response = try await fiber.get("/users")
        #expect(seen.messages == [response.traceID])
        #expect(TraceContext.traceID == "")  // outside any request
    }

    @Test func callerTraceIsKept() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        let response = try await TraceContext.$traceID.withValue("checkout-42") { try await fiber.get("/cart") }
        #expect(response.traceID == "checkout-42")
    }

    @Test func spans() async throws {
        var span = Span(name: "parseResponse")
        #expect(!span.isFinished && span.durationMs == nil)
        // ... do work ...
        let finished = span.finish()
        print("Took \(finished.durationMs ?? 0)ms")
        #expect(finished.durationMs.map { $0 >= 0 } == true && finished.endTime != nil)
        let again = span.finish()
        #expect(again.durationMs == finished.durationMs)  // the first finish counts
        #expect(span.id.count == 16)
    }

    @Test func customMetadata() async throws {
        let collector = TestTraceCollector()
        let (fiber, mock) = mockFiber([LoggingInterceptor(logger: collector.logger())])
        mock.stubAll(.ok())
        try await TraceContext.$metadata.withValue(["userId": "123", "feature": "search"]) {
            let response = try await fiber.get("/search")
            #expect(response.isSuccess)
        }
        #expect(collector.logs.allSatisfy { $0.metadata["userId"] == "123" && $0.metadata["feature"] == "search" })
    }

    @Test func traceExport() async throws {
        actor Jaeger { var spans: [Span] = []; func add(_ s: [Span]) { spans += s } }
        struct JaegerExporter: TraceExporter {
            let backend: Jaeger
            func export(_ spans: [Span]) async {
                for span in spans {
                    // Send to Jaeger, Zipkin, OTLP, etc.
                    await backend.add([span])
                }
            }
        }
        let backend = Jaeger()
        let mock = MockTransport()
        mock.stubAll(.ok())
        let collector = TestTraceCollector()
        let fiber = Fiber("https://api.example.com") {
            $0.transport = mock
            $0.traceExporter = JaegerExporter(backend: backend)
        }
        let traced = Fiber("https://api.example.com") {
            $0.transport = mock
            $0.traceExporter = collector
        }
        let response = try await fiber.get("/users")
        let spans = await backend.spans
        #expect(spans.count == 1)
        #expect(spans[0].name == "GET /users" && spans[0].traceID == response.traceID && spans[0].isFinished)
        #expect(spans[0].attributes["http.status_code"] == "200")
        try await traced.get("/a")
        #expect(collector.spans.count == 1)
    }

    /// With an instrument installed, the trace context on the wire is the instrument's
    /// alone (`InMemoryTracer` writes no `traceparent`); the option turns it off.
    /// (Fiber's own `traceparent`, without an instrument: `NoInstrumentTests`.)
    @Test func theInstalledInstrumentPropagates() async throws {
        _ = SharedTracer.tracer
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        try await fiber.get("/")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "traceparent") == nil)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: InMemoryTracer.traceIDKey) != nil)

        // A request's own traceparent is left alone; the option turns propagation off.
        try await fiber.send(FiberRequest(url: "https://api.example.com/").header("traceparent", "00-own-own-01"))
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "traceparent") == "00-own-own-01")
        let quiet = Fiber("https://api.example.com") { $0.transport = mock; $0.propagatesTraceContext = false }
        try await quiet.get("/")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "traceparent") == nil)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: InMemoryTracer.traceIDKey) == nil)
    }

    @Test func nonUUIDTraceIDsMapToStableW3CIDs() {
        let a = TraceParent.w3cTraceID("custom-1")
        #expect(a.count == 32 && a.allSatisfy(\.isHexDigit) && a == TraceParent.w3cTraceID("custom-1"))
        #expect(a != TraceParent.w3cTraceID("custom-2"))
        #expect(TraceParent.w3cTraceID("A1B2C3D4-0000-0000-0000-00000000000F") == "a1b2c3d4" + String(repeating: "0", count: 23) + "f")
    }
}
