import Foundation

/// Measures every request (duration, sizes, status) and hands the result to a
/// `MetricsCollector`. Placed innermost, it measures the transport alone.
public struct MetricsInterceptor: Interceptor {
    /// `"metrics"`.
    public let name = "metrics"
    private let collector: any MetricsCollector

    /// Reports to `collector`.
    public init(collector: any MetricsCollector) { self.collector = collector }

    /// - Throws: what `next` throws (recorded first with status 0).
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        let timestamp = Date()
        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            await record(request, status: response.statusCode, responseSize: response.data.count, start, timestamp,
                         success: response.isSuccess)
            return response
        } catch {
            await record(request, status: 0, responseSize: 0, start, timestamp, success: false)
            throw error
        }
    }

    private func record(_ request: FiberRequest, status: Int, responseSize: Int, _ start: ContinuousClock.Instant,
                        _ timestamp: Date, success: Bool) async {
        await collector.collect(RequestMetrics(
            traceID: TraceContext.traceID, method: request.httpMethod.rawValue, url: request.url.absoluteString,
            statusCode: status, requestSize: request.body?.count ?? 0, responseSize: responseSize,
            durationMs: (ContinuousClock.now - start).seconds * 1000, timestamp: timestamp, success: success))
    }
}
