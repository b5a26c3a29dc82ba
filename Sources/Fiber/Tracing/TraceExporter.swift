/// Ships finished spans to an observability backend (Jaeger, Zipkin, OTLP, …).
/// A client given one (`Fiber.Configuration.traceExporter`) exports a span per request.
public protocol TraceExporter: Sendable {
    /// Receives finished spans.
    func export(_ spans: [Span]) async
}
