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
///
/// A request whose body is a stream read once (`HTTPRequestBody.isReplayable`
/// false) is never retried: its body cannot be sent again. Files, bodies in
/// memory and streams made by a function are.
///
/// With a `policy`, the policy decides instead of those rules (it sees every
/// response and every `FiberError`, and the number of retries made), within
/// `maxRetries` and the request's deadline. A request's own `retry(_:)` wins over
/// both: `.none`, `.retry(count:)` with these rules, or a policy of its own.
public final class RetryInterceptor: Interceptor, InlineInterceptor {
    /// `"retry"`.
    public let name = "retry"
    /// Retries after the first attempt.
    public let maxRetries: Int
    /// The delay rule.
    public let backoff: Backoff
    /// Statuses that are retried.
    public var retryableStatusCodes: Set<Int> { retryableStatusList.all }
    /// Methods that are retried.
    public var retryableMethods: Set<HTTPMethod> { retryableMethodList.all }
    private let shouldRetry: (@Sendable (any Error) -> Bool)?
    /// Decides instead of the rules, when given.
    private let policy: (any RetryPolicy)?
    /// The two sets, checked on every request and response.
    private let retryableMethodList: SmallSet<HTTPMethod>
    private let retryableStatusList: SmallSet<Int>
    private let clock: FiberClock
    private let random: @Sendable () -> Double

    /// - Parameters:
    ///   - maxRetries: attempts after the first (default 3).
    ///   - baseDelay: seconds before the first retry; each next one is `defaults.exponentialBackoffBase` times longer.
    ///   - maxDelay: the longest wait between attempts, in seconds.
    ///   - retryableStatusCodes: statuses that are retried (default 408, 429, 500, 502, 503, 504).
    ///   - retryableMethods: methods that are retried (default: the idempotent ones).
    ///   - shouldRetry: more errors to retry, besides timeouts and network errors.
    ///   - defaults: `exponentialBackoffBase` and `jitterFraction` come from here.
    ///   - clock: sleeps between attempts (tests pass a virtual one).
    ///   - random: a number in -1...1 for the jitter (default: uniform).
    ///   - policy: decides instead of the statuses, methods and errors above.
    public init(
        maxRetries: Int = 3,
        baseDelay: TimeInterval = 0.5,
        maxDelay: TimeInterval = 30,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableMethods: Set<HTTPMethod> = [.get, .head, .options, .put, .delete],
        shouldRetry: (@Sendable (any Error) -> Bool)? = nil,
        defaults: FiberDefaults = .shared,
        clock: FiberClock = .continuous,
        random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) },
        policy: (any RetryPolicy)? = nil
    ) {
        self.policy = policy
        self.maxRetries = max(0, maxRetries)
        self.backoff = Backoff(baseDelay: baseDelay, maxDelay: maxDelay, multiplier: defaults.exponentialBackoffBase,
                               jitterFraction: defaults.jitterFraction)
        self.retryableStatusList = SmallSet(retryableStatusCodes)
        self.retryableMethodList = SmallSet(retryableMethods)
        self.shouldRetry = shouldRetry
        self.clock = clock
        self.random = random
    }

    /// - Throws: the last attempt's error once retries are exhausted or not
    ///   allowed; `CancellationError` when cancelled while waiting.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    /// True when `request` is never retried (no retries, a method that is not retryable,
    /// or a body that cannot be sent again).
    func passesOn(_ request: FiberRequest) -> Bool {
        if request.bodyStream?.isReplayable == false { return true }
        switch request.overrides?.retry {
        case nil where policy == nil: return maxRetries == 0 || !retryableMethodList.contains(request.httpMethod)
        case nil: return maxRetries == 0
        case .none?: return true
        case .retry(let count)?: return count <= 0 || !retryableMethodList.contains(request.httpMethod)
        case .policy(_, let most)?: return most <= 0
        }
    }

    /// A request that is never retried needs nothing of this step.
    func handleAtOnce(_ request: FiberRequest) -> Bool { passesOn(request) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        guard !passesOn(request) else { return try await next(request) }
        switch request.overrides?.retry {
        case .policy(let own, let most)?: return try await decided(by: own, request, next: next, maxRetries: most)
        case .retry(let count)?: return try await byRules(request, next: next, maxRetries: count)
        default:
            if let policy { return try await decided(by: policy, request, next: next, maxRetries: maxRetries) }
            return try await byRules(request, next: next, maxRetries: maxRetries)
        }
    }

    /// Retries by the statuses, methods and errors the interceptor was made with.
    nonisolated(nonsending) private func byRules(_ request: FiberRequest, next: InlineNext, maxRetries: Int) async throws
        -> FiberResponse {
        var attempt = 0
        while true {
            attempt += 1
            // The response or error is judged where it arrives rather than wrapped in a
            // `Result` first: a response goes back without being copied.
            let delay: Duration
            do {
                let response = try await next(request)
                guard attempt <= maxRetries, let wait = delayBeforeRetry(after: response, attempt: attempt),
                      fitsDeadline(wait, of: request) else { return response }
                delay = wait
            } catch {
                guard attempt <= maxRetries, let wait = delayBeforeRetry(after: error, attempt: attempt),
                      fitsDeadline(wait, of: request) else { throw error }
                delay = wait
            }
            try Task.checkCancellation()
            try await clock.sleep(delay, nil)
        }
    }

    /// Retries as `policy` decides, at most `maxRetries` times.
    @inline(never)
    nonisolated(nonsending) private func decided(by policy: any RetryPolicy, _ request: FiberRequest, next: InlineNext,
                                                 maxRetries: Int) async throws -> FiberResponse {
        var retries = 0
        while true {
            let outcome: Result<FiberResponse, FiberError>
            do {
                outcome = .success(try await next(request))
            } catch let error as FiberError {
                outcome = .failure(error)
            }
            if case .failure(.cancelled) = outcome { return try outcome.get() }
            guard retries < maxRetries else { return try outcome.get() }
            let decision = try await policy.retry(request, dueTo: outcome, retryCount: retries)
            if case .doNotRetryWithError(let error) = decision {
                throw (error as? FiberError) ?? FiberError.interceptor(name: name, underlying: error)
            }
            guard let seconds = decision.delay(forRetry: retries) else { return try outcome.get() }
            let wait = Duration.seconds(clamping: seconds)
            guard fitsDeadline(wait, of: request) else { return try outcome.get() }
            try Task.checkCancellation()
            if wait > .zero { try await clock.sleep(wait, nil) }
            retries += 1
        }
    }

    /// The wait before the next attempt after `response`, or nil when it is not to be retried.
    private func delayBeforeRetry(after response: FiberResponse, attempt: Int) -> Duration? {
        guard retryableStatusList.contains(response.statusCode) else { return nil }
        if let asked = RetryAfter.delay(in: response) {
            return asked <= .seconds(clamping: backoff.maxDelay) ? asked : nil
        }
        return backoff.delay(attempt: attempt, unitRandom: random())
    }

    /// The wait before the next attempt after `error`, or nil when it is not to be retried.
    /// (Not inlined: its casts to resilient types would be task allocations in `run` on every request.)
    @inline(never)
    private func delayBeforeRetry(after error: any Error, attempt: Int) -> Duration? {
        guard isRetryable(error) else { return nil }
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
