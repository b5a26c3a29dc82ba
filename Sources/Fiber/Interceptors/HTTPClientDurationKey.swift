/// The dimensions of one series of OpenTelemetry's `http.client.request.duration`
/// histogram: what the semantic conventions require of an HTTP client's
/// duration, and nothing of higher cardinality (no path, no query).
struct HTTPClientDurationKey: Hashable, Sendable {
    /// The metric's name in the conventions.
    static let label = "http.client.request.duration"

    let method: String
    /// 0 when no response came.
    let status: Int
    let scheme: String
    let serverAddress: String
    let serverPort: Int
    /// The status for 4xx and 5xx, the error's type for a failure, else nil.
    let errorType: String?

    init(_ attributes: HTTPClientAttributes, status: Int, errorType: String?) {
        method = attributes.method
        self.status = status
        scheme = attributes.scheme
        serverAddress = attributes.serverAddress
        serverPort = attributes.serverPort
        // A request that failed without saying how has OpenTelemetry's catch-all type.
        self.errorType = errorType ?? HTTPClientAttributes.errorType(status: status) ?? (status == 0 ? "_OTHER" : nil)
    }

    /// The swift-metrics dimensions, named as the conventions name the attributes.
    var dimensions: [(String, String)] {
        var dimensions = [("http.request.method", method)]
        if status != 0 { dimensions.append(("http.response.status_code", String(status))) }
        dimensions += [("server.address", serverAddress), ("server.port", String(serverPort)), ("url.scheme", scheme)]
        if let errorType { dimensions.append(("error.type", errorType)) }
        return dimensions
    }
}
