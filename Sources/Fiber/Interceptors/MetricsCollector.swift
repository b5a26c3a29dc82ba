/// Receives the metrics of every request: `InMemoryMetricsCollector`,
/// `SwiftMetricsCollector` (swift-metrics), or your own backend.
public protocol MetricsCollector: Sendable {
    /// Records one request's metrics.
    func collect(_ metrics: RequestMetrics) async
}
