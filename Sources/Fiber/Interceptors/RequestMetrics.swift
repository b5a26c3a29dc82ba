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
    /// True for a response below 400 (2xx, and a 3xx that reached the client, such
    /// as the 304 of a cache revalidation); false for 4xx, 5xx and failures.
    public let success: Bool
    /// OpenTelemetry's `error.type`: the status for 4xx and 5xx, the error's type
    /// name for a failure without a response, nil otherwise.
    public let errorType: String?

    /// Metrics from their parts.
    public init(traceID: String, method: String, url: String, statusCode: Int, requestSize: Int, responseSize: Int,
                durationMs: Double, timestamp: Date, success: Bool, errorType: String? = nil) {
        self.errorType = errorType
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
