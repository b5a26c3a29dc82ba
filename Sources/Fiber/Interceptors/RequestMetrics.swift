import Foundation

/// What `MetricsInterceptor` measured of one request.
public struct RequestMetrics: Sendable {
    /// The request's trace ID.
    public let traceID: String
    /// The method, such as `"GET"`.
    public let method: String
    /// The full URL.
    public let url: String
    /// The status code (0 when the request failed without a response).
    public let statusCode: Int
    /// Bytes of the request body.
    public let requestSize: Int
    /// Bytes of the response body.
    public let responseSize: Int
    /// Milliseconds from the interceptor to the response (or failure).
    public let durationMs: Double
    /// When the request started.
    public let timestamp: Date
    /// True for 2xx.
    public let success: Bool

    /// Metrics from their parts.
    public init(traceID: String, method: String, url: String, statusCode: Int, requestSize: Int, responseSize: Int,
                durationMs: Double, timestamp: Date, success: Bool) {
        self.traceID = traceID
        self.method = method
        self.url = url
        self.statusCode = statusCode
        self.requestSize = requestSize
        self.responseSize = responseSize
        self.durationMs = durationMs
        self.timestamp = timestamp
        self.success = success
    }
}

/// Receives the metrics of every request: `InMemoryMetricsCollector`,
/// `SwiftMetricsCollector` (swift-metrics), or your own backend.
public protocol MetricsCollector: Sendable {
    /// Records one request's metrics.
    func collect(_ metrics: RequestMetrics) async
}

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
