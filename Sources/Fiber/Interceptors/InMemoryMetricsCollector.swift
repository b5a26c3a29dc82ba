/// Keeps every request's metrics in memory, with summaries.
public actor InMemoryMetricsCollector: MetricsCollector {
    /// Everything collected, in order.
    public private(set) var metrics: [RequestMetrics] = []

    /// An empty collector.
    public init() {}

    /// Appends `metrics` to `metrics`.
    public func collect(_ metrics: RequestMetrics) { self.metrics.append(metrics) }

    /// The mean duration in milliseconds (0 with no requests).
    public var averageDurationMs: Double {
        metrics.isEmpty ? 0 : metrics.reduce(0) { $0 + $1.durationMs } / Double(metrics.count)
    }

    /// The fraction of successful requests, 0...1 (0 with no requests).
    public var successRate: Double {
        metrics.isEmpty ? 0 : Double(metrics.count { $0.success }) / Double(metrics.count)
    }

    /// Forgets everything collected.
    public func reset() { metrics.removeAll() }
}
