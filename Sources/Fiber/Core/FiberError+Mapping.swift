import FiberRuntime

extension FiberError {
    /// The error the caller sees for a failure of the transport.
    ///
    /// | thrown by the transport | becomes |
    /// | --- | --- |
    /// | `FiberError` | itself |
    /// | `CancellationError`, `HTTPClientError.cancelled` | `.cancelled` |
    /// | `HTTPClientError` `.deadlineExceeded`, `.readTimeout`, `.responseHeadTimeout` | `.timeout` |
    /// | `HTTPClientError` `.invalidURL` | `.invalidURL` (the URL) |
    /// | any other `HTTPClientError` (`.proxy` among them: `proxyFailure` reads it), `TransportError`, other errors | `.networkError`, the error intact |
    ///
    /// A connect timeout stays a `.networkError` (its `HTTPClientError` says
    /// `.transport` with a `TransportError` of kind `.timeout`): it says which
    /// address did not answer, which `.timeout` could not.
    @inline(never)  // its cast to `CancellationError` (resilient) would size an async caller's locals at run time
    public init(transportFailure error: any Error) {
        switch error {
        case let error as FiberError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as HTTPClientError:
            switch error.kind {
            case .cancelled: self = .cancelled
            case .deadlineExceeded, .readTimeout, .responseHeadTimeout: self = .timeout
            case .invalidURL: self = .invalidURL(error.url ?? error.description)
            default: self = .networkError(underlying: error)
            }
        default:
            self = .networkError(underlying: error)
        }
    }

    /// The error a caller of `Fiber.send` sees for `error` thrown by the chain:
    /// cancellation becomes `.cancelled`; everything else is left as it is.
    /// (Not inlined: its cast to `CancellationError`, a resilient type, would be a task
    /// allocation in the async caller on every request, failed or not.)
    @inline(never)
    static func surfacing(_ error: any Error) -> any Error {
        if error is CancellationError { return FiberError.cancelled }
        return error
    }
}
