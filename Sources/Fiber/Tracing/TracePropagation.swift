import FiberRuntime
import Instrumentation

/// Which trace context a request carries to the server.
///
/// - With a swift-distributed-tracing instrument installed, the instrument's
///   own fields for the current context (the attempt's span when a tracer
///   records one), and nothing of Fiber's: the instrument knows its format
///   (W3C, B3, …) and its sampling decision.
/// - Without one, a W3C `traceparent` for `TraceContext.traceID` with the
///   sampled flag clear, unless the request has one: Fiber records nothing
///   itself, so it must not tell the server that the caller sampled the trace.
/// - Nothing at all when `propagatesTraceContext` is off.
enum TracePropagation {
    /// Adds the trace context to `headers` (in place: the transport step's one copy).
    static func inject(into headers: inout HTTPHeaders, traceID: String, instrumented: Bool) {
        if instrumented {
            if let context = ServiceContext.current {
                InstrumentationSystem.instrument.inject(context, into: &headers, using: HTTPHeadersInjector())
            }
        } else if !headers.contains(name: TraceParent.headerName) {
            headers.append(name: TraceParent.headerName, value: TraceParent.valueWithNewSpan(traceID: traceID))
        }
    }

    /// The 32-hex-digit trace ID of `context` when the installed instrument
    /// propagates it as a W3C `traceparent` (OpenTelemetry's default), else nil.
    static func w3cTraceID(of context: ServiceContext) -> String? {
        var fields: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &fields, using: DictionaryInjector())
        guard let value = fields[TraceParent.headerName] ?? fields.first(where: { $0.key.lowercased() == TraceParent.headerName })?.value
        else { return nil }
        return TraceParent.traceID(in: value)
    }
}

/// Writes swift-distributed-tracing's propagation fields into Fiber's headers.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}

/// Collects propagation fields in a dictionary, to read the trace ID among them.
private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout [String: String]) {
        fields[key] = value
    }
}
