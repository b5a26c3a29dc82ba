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
        body = response.stream ?? FiberBodyStream(data: response.data)
        head = response
    }

    /// True for 200–299.
    public var isSuccess: Bool { head.isSuccess }

    /// The first value of the header `name`, in any case.
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// Reads the whole body into a `FiberResponse` (for a body known to be small after all).
    ///
    /// - Throws: as `FiberBodyStream.collect(maxBytes:)`.
    public func collect(maxBytes: Int = 100 * 1024 * 1024) async throws(FiberError) -> FiberResponse {
        let data = try await body.collect(maxBytes: maxBytes)
        var response = head.replacingData(data)
        response.stream = nil
        return response
    }
}
