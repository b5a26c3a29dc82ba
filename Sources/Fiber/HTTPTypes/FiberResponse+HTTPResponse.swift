import FiberRuntime
import Foundation
import HTTPTypes

extension HTTPResponse {
    /// swift-http-types' view of `response`: its status code (with no reason phrase:
    /// Fiber keeps none) and its header fields in order. The body stays `response.data`.
    ///
    /// - Throws: `HTTPTypesConversionError` `.invalidStatus` for a code outside
    ///   `0...999` (a response made by hand or by a mock can have any `Int`), and
    ///   what `HTTPFields(validating:)` throws for its header fields.
    public init(_ response: FiberResponse) throws(HTTPTypesConversionError) {
        try self.init(statusCode: response.statusCode, headers: response.headers)
    }

    /// swift-http-types' view of a streamed `response`'s head, as `init(_:)` for a
    /// `FiberResponse`; the body stays `response.body`, unread.
    ///
    /// - Throws: as `init(_:)` for a `FiberResponse`.
    public init(_ response: FiberStreamingResponse) throws(HTTPTypesConversionError) {
        try self.init(statusCode: response.statusCode, headers: response.headers)
    }

    private init(statusCode: Int, headers: HTTPHeaders) throws(HTTPTypesConversionError) {
        // `Status(code:)` stops the process for a code outside 0...999: checked first.
        guard (0...999).contains(statusCode) else {
            throw HTTPTypesConversionError(.invalidStatus, subject: String(statusCode))
        }
        self.init(status: Status(code: statusCode), headerFields: try HTTPFields(validating: headers))
    }
}

extension FiberResponse {
    /// A response from swift-http-types' `response` and its whole `body`, for
    /// interceptors and mocks that answer with one: the status code and the header
    /// fields in order. `request` is the request it answers.
    public init(_ response: HTTPResponse, data: Data, request: FiberRequest) {
        self.init(data: data, statusCode: response.status.code, headers: HTTPHeaders(response.headerFields),
                  request: request)
    }
}
