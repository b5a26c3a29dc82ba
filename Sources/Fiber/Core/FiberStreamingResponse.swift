import FiberRuntime
import Foundation

/// A response whose body is read as it arrives, for large bodies: returned by
/// `Fiber.stream(_:)` as soon as the head is in.
public struct FiberStreamingResponse: Sendable {
    /// The status code.
    public let statusCode: Int
    /// The header fields as received.
    public let headers: HTTPHeaders
    /// The request as sent.
    public let request: FiberRequest
    /// The trace ID of the request.
    public let traceID: String
    /// The body, to iterate once.
    public let body: FiberBodyStream
    private let head: FiberResponse

    init(_ response: FiberResponse) {
        statusCode = response.statusCode
        headers = response.headers
        request = response.request
        traceID = response.traceID
        body = response.stream ?? FiberBodyStream(data: response.data, trailers: response.trailers)
        head = response
    }

    /// True for 200–299.
    public var isSuccess: Bool { head.isSuccess }

    /// The first value of the header `name`, in any case.
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// The trailer fields that followed the body, once `body` has been read to
    /// its end; nil when there were none (see `FiberBodyStream.trailers()`).
    ///
    /// - Throws: `FiberError`, as `FiberBodyStream.trailers()`.
    public func trailers() async throws(FiberError) -> HTTPHeaders? {
        try await body.trailers()
    }

    /// Reads the whole body into a `FiberResponse` (for a body known to be small
    /// after all), with the trailers that followed it.
    ///
    /// - Throws: as `FiberBodyStream.collect(maxBytes:)`.
    public func collect(maxBytes: Int = 100 * 1024 * 1024) async throws(FiberError) -> FiberResponse {
        let data = try await body.collect(maxBytes: maxBytes)
        var response = head.replacingData(data)
        response.stream = nil
        response.trailers = try await body.trailers()
        return response
    }
}
