import Foundation

/// What to do after an attempt: the answer of a `RetryPolicy`.
public enum RetryResult: Sendable {
    /// Return the response, or throw the error, as it is.
    case doNotRetry
    /// Send the request again at once.
    case retry
    /// Send it again after `seconds`.
    case retryWithDelay(TimeInterval)
    /// Send it again after the back-off's delay for this retry.
    case retryWithExponentialBackoff(ExponentialBackoff)
    /// Stop, and fail with `error` (a `FiberError` as it is; another error as
    /// `FiberError.interceptor(name: "retry", underlying:)`).
    case doNotRetryWithError(any Error)

    /// The wait before retry number `retryCount` (0 for the first retry), or nil when
    /// there is to be none: for your own interceptor acting on a policy's answer.
    public func delay(forRetry retryCount: Int) -> TimeInterval? {
        switch self {
        case .doNotRetry, .doNotRetryWithError: nil
        case .retry: 0
        case .retryWithDelay(let seconds): max(0, seconds)
        case .retryWithExponentialBackoff(let backoff): backoff.delay(for: retryCount)
        }
    }
}

/// Delays that grow by `backoffBase` each retry: `baseDelay`, then
/// `baseDelay × backoffBase`, then `× backoffBase²`, up to `maxDelay`.
public struct ExponentialBackoff: Sendable, Hashable {
    /// The first retry's delay, in seconds.
    public let baseDelay: TimeInterval
    /// The growth from one retry to the next.
    public let backoffBase: Double
    /// The longest delay, in seconds.
    public let maxDelay: TimeInterval

    /// A back-off from its parts (negative values count as zero; a base below 1 as 1).
    public init(baseDelay: TimeInterval = 1, backoffBase: Double = 2, maxDelay: TimeInterval = 60) {
        self.baseDelay = max(0, baseDelay)
        self.backoffBase = max(1, backoffBase)
        self.maxDelay = max(0, maxDelay)
    }

    /// The delay before retry number `retryCount`: 0 → `baseDelay`, 1 → `baseDelay × backoffBase`, …
    public func delay(for retryCount: Int) -> TimeInterval {
        var delay = baseDelay
        for _ in 0..<min(max(0, retryCount), 64) where delay < maxDelay { delay *= backoffBase }
        return min(delay, maxDelay)
    }
}
