import FiberRuntime
import Instrumentation
import Tracing

/// The spans of the redirects an attempt follows. The runtime follows them inside
/// one call and reports each hop as the next request goes (`RedirectHop`); each
/// becomes a client span of its own, a child of the attempt's span, with the hop's
/// own start and end, URL, status and `Location`. The attempt's span covers the
/// whole chain and records the final response.
enum RedirectSpans {
    /// Set around an attempt whose span records, for `HTTPTransport` to hand to the runtime.
    @TaskLocal static var observer: (@Sendable (RedirectHop) -> Void)?

    /// An observer that records each hop as a client span under `parent`.
    static func recording(under parent: ServiceContext) -> @Sendable (RedirectHop) -> Void {
        { hop in
            let span = startSpan(hop.method, context: parent, ofKind: .client, at: timestamp(hop.started))
            span.attributes.record(HTTPClientAttributes(method: hop.method, urlText: hop.url))
            span.attributes["http.response.status_code"] = hop.status
            span.attributes["http.response.header.location"] = [hop.location]
            span.end(at: timestamp(hop.ended))
        }
    }

    /// `instant` on the wall clock the tracer counts in, by its distance from now.
    static func timestamp(_ instant: ContinuousClock.Instant) -> DefaultTracerClock.Timestamp {
        let ago = ContinuousClock.now - instant
        let agoNanoseconds = UInt64(max(0, ago.components.seconds)) * 1_000_000_000
            + UInt64(max(0, ago.components.attoseconds / 1_000_000_000))
        let now = DefaultTracerClock.now.nanosecondsSinceEpoch
        return .init(nanosecondsSinceEpoch: now - min(now, agoNanoseconds))
    }
}
