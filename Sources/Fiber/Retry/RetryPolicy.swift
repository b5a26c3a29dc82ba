import Foundation

/// Decides whether a request is sent again, from the request, what the attempt
/// brought (a response, whatever its status, or the error) and how many retries
/// were made before (0 after the first attempt).
///
/// Give one to `RetryInterceptor(maxRetries:policy:)`, to a single request with
/// `FiberRequest.retry(.policy(_:maxRetries:))`, or call it from an interceptor of
/// your own and act on the answer (`RetryResult.delay(forRetry:)`).
///
/// ```swift
/// let policy = RetryRule { request, outcome, retryCount in
///     if case .success(let response) = outcome, response.statusCode == 503 {
///         return .retryWithExponentialBackoff(ExponentialBackoff(baseDelay: 0.2))
///     }
///     if case .failure(let error) = outcome, error.isOffline { return .doNotRetry }
///     return retryCount < 2 && outcome.isTransientFailure ? .retry : .doNotRetry
/// }
/// ```
public protocol RetryPolicy: Sendable {
    /// What to do after an attempt.
    ///
    /// - Throws: whatever the decision needs to throw (a token refresh that failed);
    ///   the request then fails with it, as `.doNotRetryWithError` would.
    func retry(_ request: FiberRequest, dueTo outcome: Result<FiberResponse, FiberError>,
               retryCount: Int) async throws -> RetryResult
}

/// A `RetryPolicy` made of a closure.
public struct RetryRule: RetryPolicy {
    private let decide: @Sendable (FiberRequest, Result<FiberResponse, FiberError>, Int) async throws -> RetryResult

    /// A policy that asks `decide`.
    public init(_ decide: @escaping @Sendable (_ request: FiberRequest, _ outcome: Result<FiberResponse, FiberError>,
                                               _ retryCount: Int) async throws -> RetryResult) {
        self.decide = decide
    }

    public func retry(_ request: FiberRequest, dueTo outcome: Result<FiberResponse, FiberError>,
                      retryCount: Int) async throws -> RetryResult {
        try await decide(request, outcome, retryCount)
    }
}

extension Result where Success == FiberResponse, Failure == FiberError {
    /// True for a failure a retry may cure (`FiberError.isTransient`).
    public var isTransientFailure: Bool {
        if case .failure(let error) = self { error.isTransient } else { false }
    }
}
