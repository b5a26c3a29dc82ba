import FiberRuntime
import Foundation

/// A call's outcome as a value, for code that prefers not to throw: the typed
/// `result` beside everything that came back (status, headers, raw body, timing).
/// A failure before any response (a refused connection, a timeout) has no
/// `response`; a failure after one (a status the chain rejected, a body that
/// did not decode) keeps it.
public struct NetworkResponse<Value: Sendable>: Sendable {
    /// The request as it was built, before the interceptors.
    public let request: FiberRequest
    /// The response, when one arrived.
    public let response: FiberResponse?
    /// The value, or the `FiberError` that stopped the call.
    public let result: Result<Value, FiberError>

    /// A response from its parts.
    public init(request: FiberRequest, response: FiberResponse?, result: Result<Value, FiberError>) {
        self.request = request
        self.response = response
        self.result = result
    }

    /// The value on success, else nil.
    public var value: Value? { try? result.get() }
    /// The error on failure, else nil.
    public var error: FiberError? {
        if case .failure(let error) = result { error } else { nil }
    }
    /// True when `result` is a success.
    public var isSuccess: Bool { error == nil }
    /// The status code, when a response arrived.
    public var statusCode: Int? { response?.statusCode }
    /// The status code, when a response arrived (the same as `statusCode`).
    public var responseCode: Int? { statusCode }
    /// The response's header fields (empty without a response).
    public var headers: HTTPHeaders { response?.headers ?? HTTPHeaders() }
    /// The body as it came, when a response arrived.
    public var data: Data? { response?.data }
    /// How long the exchange took on the transport, in seconds, when a response arrived.
    public var duration: TimeInterval? { response?.duration }

    /// The value.
    ///
    /// - Throws: the `FiberError` of a failure.
    public func get() throws(FiberError) -> Value { try result.get() }

    /// The same response with its value transformed (a failure stays as it is).
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> NetworkResponse<Other> {
        NetworkResponse<Other>(request: request, response: response, result: result.map(transform))
    }

    /// The same response with its value transformed by a step that may fail.
    public func flatMap<Other: Sendable>(_ transform: (Value) -> Result<Other, FiberError>) -> NetworkResponse<Other> {
        NetworkResponse<Other>(request: request, response: response, result: result.flatMap(transform))
    }
}

/// The name some code knows this type by.
public typealias NetworkingResponse = NetworkResponse

extension NetworkResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// A few lines: the request, the status and timing, the body's size, the result.
    public var description: String {
        var lines = ["Request: \(request.httpMethod) \(request.url)"]
        if let response {
            lines.append("Response: \(response.statusCode) in \(String(format: "%.1f", response.duration * 1000)) ms")
            lines.append("Data: \(response.data.count) bytes")
        } else {
            lines.append("Response: none")
        }
        switch result {
        case .success(let value): lines.append("Result: success(\(value))")
        case .failure(let error): lines.append("Result: failure(\(error))")
        }
        return lines.joined(separator: "\n")
    }

    /// `description`, with the response's header fields (credentials redacted).
    public var debugDescription: String {
        guard let response, !response.headers.isEmpty else { return description }
        return description + "\nHeaders:\n" + LogRedaction.headers(response.headers).map { "  " + $0 }.joined(separator: "\n")
    }
}
