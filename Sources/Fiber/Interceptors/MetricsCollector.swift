/// Receives the metrics of every request: `InMemoryMetricsCollector`,
/// `SwiftMetricsCollector` (swift-metrics), or your own backend.
public protocol MetricsCollector: Sendable {
    /// Records one request's metrics.
    func collect(_ metrics: RequestMetrics) async
}

/// A collector that reports in place, without suspending (see `InlineInterceptor`
/// for why that matters), and reads only these fields of `RequestMetrics`:
/// `MetricsInterceptor` calls `report` instead of `collect`, and skips the rest.
protocol InlineMetricsCollector: MetricsCollector {
    /// What `collect(_:)` does with metrics of these values.
    func report(method: String, statusCode: Int, requestSize: Int, responseSize: Int, durationMs: Double, success: Bool)
}
