import Foundation

/// Every failure of a Fiber request, with the context a person or a caller needs.
///
/// Errors thrown by the transport reach the caller as one of these (see
/// `FiberError.init(transportFailure:)` for the mapping). Errors thrown by an
/// interceptor of yours pass through unchanged, so `catch let e as MyError`
/// works; the built-in interceptors throw their own documented errors.
public enum FiberError: Error, Sendable, CustomStringConvertible {
    /// The response's status was rejected (by `validateStatus()`, the client's
    /// `validateStatus`, or `request(_:)` of an `Endpoint`).
    indirect case httpError(statusCode: Int, data: Data, response: FiberResponse)
    /// The body did not decode as the requested type; `data` is the body.
    case decodingError(underlying: any Error, data: Data)
    /// The request failed in the transport: connect, DNS, reset, malformed
    /// response, … `underlying` is the transport's error, intact (for the
    /// default transport an `HTTPClientError`, with its `kind`, URL and socket error).
    /// A download that fails for a reason of its own (its file, its checksum, a
    /// server breaking the rules of ranges) has a `TransferFailure` here.
    case networkError(underlying: any Error)
    /// The request's deadline passed, or no byte arrived for the read timeout.
    case timeout
    /// The caller's task was cancelled.
    case cancelled
    /// A built-in interceptor failed for a reason of its own (a token refresh, a decryption).
    case interceptor(name: String, underlying: any Error)
    /// The URL is not an absolute URL the transport can reach.
    case invalidURL(String)
    /// The request body could not be encoded.
    case encodingError(underlying: any Error)

    /// A one-line account of the error.
    public var description: String {
        switch self {
        case .httpError(let status, let data, _): "HTTP \(status) (\(data.count) bytes)"
        case .decodingError(let error, let data): "decoding failed: \(error) (\(data.count) bytes)"
        case .networkError(let error): "network error: \(error)"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .interceptor(let name, let error): "interceptor '\(name)' failed: \(error)"
        case .invalidURL(let url): "invalid URL: \(url)"
        case .encodingError(let error): "encoding failed: \(error)"
        }
    }
}
