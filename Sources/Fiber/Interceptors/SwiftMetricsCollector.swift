import Metrics

/// Reports request metrics to swift-metrics, so whatever backend the service
/// bootstrapped (Prometheus, StatsD, …) receives them:
///
/// - `<label>.requests` (counter) and `<label>.duration` (timer, nanoseconds),
///   with dimensions `method` and `status`;
/// - `<label>.failures` (counter) for requests that were not 2xx, by `method`;
/// - `<label>.request_size` and `<label>.response_size` (recorders, bytes).
public struct SwiftMetricsCollector: MetricsCollector {
    private let label: String
    private let factory: (any MetricsFactory)?

    /// Reports under `label` to `factory` (nil: the bootstrapped `MetricsSystem`).
    public init(label: String = "fiber.http", factory: (any MetricsFactory)? = nil) {
        self.label = label
        self.factory = factory
    }

    /// Reports `metrics` to the factory.
    public func collect(_ metrics: RequestMetrics) async {
        let dimensions = [("method", metrics.method), ("status", String(metrics.statusCode))]
        let factory = self.factory ?? MetricsSystem.factory
        Counter(label: "\(label).requests", dimensions: dimensions, factory: factory).increment()
        Timer(label: "\(label).duration", dimensions: dimensions, factory: factory)
            .recordNanoseconds(Int64(metrics.durationMs * 1_000_000))
        if !metrics.success {
            Counter(label: "\(label).failures", dimensions: [("method", metrics.method)], factory: factory).increment()
        }
        Recorder(label: "\(label).request_size", factory: factory).record(metrics.requestSize)
        Recorder(label: "\(label).response_size", factory: factory).record(metrics.responseSize)
    }
}
