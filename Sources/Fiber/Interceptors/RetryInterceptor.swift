import Foundation

/// Retries failed requests with exponential backoff and jitter.
///
/// A request is retried when its method is retryable (idempotent ones by
/// default: POST is not, as a retry could create a resource twice) and either
/// its response has a retryable status, or it failed with a retryable error
/// (`FiberError.timeout` and `.networkError`, plus whatever `shouldRetry`
/// accepts). A `Retry-After` header sets the delay instead of the backoff.
///
/// It never sleeps past the request's deadline: when the next delay would end
/// after it, the last response is returned (or the last error thrown) at once.
/// Cancellation stops it at once with `CancellationError` (`.cancelled` for the caller).
public struct RetryInterceptor: Interceptor {
    /// `"retry"`.
    public let name = "retry"
    /// Retries after the first attempt.
    public let maxRetries: Int
    /// The delay rule.
    public let backoff: Backoff
    /// Statuses that are retried.
    public let retryableStatusCodes: Set<Int>
    /// Methods that are retried.
    public let retryableMethods: Set<HTTPMethod>
    private let shouldRetry: (@Sendable (any Error) -> Bool)?
    private let clock: FiberClock
    private let random: @Sendable () -> Double

    /// - Parameters:
    ///   - shouldRetry: more errors to retry, besides timeouts and network errors.
    ///   - defaults: `exponentialBackoffBase` and `jitterFraction` come from here.
    ///   - clock: sleeps between attempts (tests pass a virtual one).
    ///   - random: a number in -1...1 for the jitter (default: uniform).
    public init(
        maxRetries: Int = 3,
        baseDelay: TimeInterval = 0.5,
        maxDelay: TimeInterval = 30,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableMethods: Set<HTTPMethod> = [.get, .head, .options, .put, .delete],
        shouldRetry: (@Sendable (any Error) -> Bool)? = nil,
        defaults: FiberDefaults = .shared,
        clock: FiberClock = .continuous,
        random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) }
    ) {
        self.maxRetries = max(0, maxRetries)
        self.backoff = Backoff(baseDelay: baseDelay, maxDelay: maxDelay, multiplier: defaults.exponentialBackoffBase,
                               jitterFraction: defaults.jitterFraction)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableMethods = retryableMethods
        self.shouldRetry = shouldRetry
        self.clock = clock
        self.random = random
    }

    /// - Throws: the last attempt's error once retries are exhausted or not
    ///   allowed; `CancellationError` when cancelled while waiting.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        guard maxRetries > 0, retryableMethods.contains(request.httpMethod) else { return try await next(request) }
        var attempt = 0
        while true {
            let outcome: Result<FiberResponse, any Error>
            do {
                outcome = .success(try await next(request))
            } catch {
                outcome = .failure(error)
            }
            attempt += 1
            guard attempt <= maxRetries, let delay = delayBeforeRetry(after: outcome, attempt: attempt),
                  fitsDeadline(delay, of: request) else {
                return try outcome.get()
            }
            try Task.checkCancellation()
            try await clock.sleep(delay, nil)
        }
    }

    /// The wait before the next attempt, or nil when `outcome` is not to be retried.
    private func delayBeforeRetry(after outcome: Result<FiberResponse, any Error>, attempt: Int) -> Duration? {
        switch outcome {
        case .success(let response):
            guard retryableStatusCodes.contains(response.statusCode) else { return nil }
            if let asked = RetryAfter.delay(in: response) {
                return asked <= .seconds(clamping: backoff.maxDelay) ? asked : nil
            }
        case .failure(let error):
            guard isRetryable(error) else { return nil }
        }
        return backoff.delay(attempt: attempt, unitRandom: random())
    }

    private func isRetryable(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        if let error = error as? FiberError {
            if case .cancelled = error { return false }
            if error.isTransient { return true }
        }
        return shouldRetry?(error) ?? false
    }

    private func fitsDeadline(_ delay: Duration, of request: FiberRequest) -> Bool {
        guard let remaining = request.remainingTime else { return true }
        return delay < remaining
    }
}
