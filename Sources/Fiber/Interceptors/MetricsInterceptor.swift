import FiberRuntime
import Foundation

/// Measures every request (duration, sizes, status) and hands the result to a
/// `MetricsCollector`. Placed innermost, it measures the transport alone.
public final class MetricsInterceptor: Interceptor, InlineInterceptor {
    /// `"metrics"`.
    public let name = "metrics"
    private let collector: any MetricsCollector
    /// What reports in place, on the caller's executor, when the collector is a `SwiftMetricsCollector`.
    private let reporter: SwiftMetricsReporter?

    /// Reports to `collector`.
    public init(collector: any MetricsCollector) {
        self.collector = collector
        self.reporter = (collector as? SwiftMetricsCollector)?.reporter
    }

    /// - Throws: what `next` throws (recorded first with status 0).
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        // Only a collector that receives `RequestMetrics` reads the wall-clock start.
        let timestamp = reporter == nil ? Date() : nil
        let start = MonotonicTime.now()
        do {
            let response = try await next(request)
            // Below 400 is no failure: a 304 revalidation is the cache working.
            if let metrics = measure(request, status: response.statusCode, responseSize: response.data.count, start,
                                     timestamp, errorType: HTTPClientAttributes.errorType(status: response.statusCode)) {
                await collector.collect(metrics)
            }
            return response
        } catch {
            if let metrics = measure(request, status: 0, responseSize: 0, start, timestamp,
                                     errorType: HTTPClientAttributes.errorType(error)) {
                await collector.collect(metrics)
            }
            throw error
        }
    }

    /// Reports in place (and returns nil), or returns the metrics to hand to `collect`.
    /// Synchronous, so that the usual case, swift-metrics, costs no suspension point;
    /// not inlined, so that its locals stay out of the async caller's frame.
    @inline(never)
    private func measure(_ request: FiberRequest, status: Int, responseSize: Int, _ start: MonotonicTime,
                         _ timestamp: Date?, errorType: String?) -> RequestMetrics? {
        let durationMs = (MonotonicTime.now() - start).seconds * 1000
        let success = errorType == nil && status != 0
        let requestSize = request.knownBodyLength ?? 0
        if let reporter {
            reporter.report(method: request.httpMethod.rawValue, statusCode: status, requestSize: requestSize,
                            responseSize: responseSize, durationMs: durationMs, success: success)
            let attributes = HTTPClientAttributes(method: request.httpMethod.rawValue, location: request.location)
            reporter.reportDuration(HTTPClientDurationKey(attributes, status: status, errorType: errorType),
                                    seconds: durationMs / 1000)
            return nil
        }
        return RequestMetrics(
            traceID: TraceContext.traceID, method: request.httpMethod.rawValue, url: request.location.text,
            statusCode: status, requestSize: requestSize, responseSize: responseSize, durationMs: durationMs,
            timestamp: timestamp ?? Date(), success: success, errorType: errorType)
    }
}
