import FiberRuntime

/// The client-side rate limit was reached and a slot did not come in time.
public enum RateLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More than `limit` requests per `interval` seconds were asked for, and
    /// the wait for the next slot exceeded `maxWait` (or the request's deadline).
    case exceeded(limit: Int, interval: Double)

    /// Says the limit.
    public var description: String {
        switch self {
        case .exceeded(let limit, let interval): "rate limit of \(limit) requests per \(interval)s exceeded"
        }
    }
}

/// A client-side token bucket: at most `maxRequests` per `perInterval`
/// seconds, with bursts up to `maxRequests`. A request that finds no slot
/// waits for the next one, in arrival order, up to `maxWait` seconds (and
/// never past its deadline); beyond that it fails with `RateLimitError.exceeded`.
///
/// The limiter wakes a waiting request within `FiberDefaults.rateLimitSleepIncrement`
/// of its slot (the sleep's tolerance), so timers can be coalesced.
public final class RateLimitInterceptor: Interceptor, InlineInterceptor {
    /// `"rateLimit"`.
    public let name = "rateLimit"
    private let limiter: RateLimiter
    private let maxWait: Duration
    private let tolerance: Duration

    /// - Parameters:
    ///   - maxRequests: requests per interval (and the largest burst).
    ///   - perInterval: the interval, in seconds.
    ///   - maxWait: the longest a request waits for a slot, in seconds.
    ///   - defaults: the constants the interceptor reads (`FiberDefaults.shared` by default).
    ///   - clock: time and sleep (tests pass a virtual one).
    public init(maxRequests: Int, perInterval: Double, maxWait: Double = 30, defaults: FiberDefaults = .shared,
                clock: FiberClock = .continuous) {
        self.limiter = RateLimiter(
            bucket: TokenBucket(capacity: maxRequests, interval: .seconds(clamping: perInterval), now: clock.now()),
            clock: clock)
        self.maxWait = .seconds(clamping: maxWait)
        self.tolerance = .seconds(clamping: defaults.rateLimitSleepIncrement)
    }

    /// - Throws: `RateLimitError.exceeded` when no slot comes within `maxWait`
    ///   or the deadline; `CancellationError` when cancelled while waiting; what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    /// Takes a token if one is at hand, which is all this step does for such a request.
    func handleAtOnce(_ request: FiberRequest) -> Bool { limiter.takeAtHand() }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        var allowed = maxWait
        if let remaining = request.remainingTime { allowed = min(allowed, remaining) }
        // A token at hand (the usual case) costs no suspension point.
        let decision = limiter.take(maxWait: allowed)
        if decision != .proceed { try await limiter.complete(decision, tolerance: tolerance) }
        return try await next(request)
    }
}

/// The shell around the bucket: it only performs the bucket's decisions.
/// A lock rather than an actor: the bucket is shared by requests on every
/// event loop, and a hop to an actor's executor would cost a thread switch
/// each way, far more than the few instructions the bucket takes. Sleeping
/// happens outside the lock.
final class RateLimiter: Sendable {
    private let bucket: Locked<TokenBucket>
    private let clock: FiberClock

    init(bucket: TokenBucket, clock: FiberClock) {
        self.bucket = Locked(bucket)
        self.clock = clock
    }

    /// True when a token was at hand, and is now taken.
    func takeAtHand() -> Bool { bucket.withLock { $0.takeAtHand(now: clock.now()) } }

    /// The bucket's decision for a request that may wait `maxWait` (a token taken or reserved).
    func take(maxWait: Duration) -> TokenBucket.Decision {
        bucket.withLock { $0.take(now: clock.now(), maxWait: maxWait) }
    }

    /// Carries out `decision`: returns at once, waits for the reserved token, or throws.
    nonisolated(nonsending) func complete(_ decision: TokenBucket.Decision, tolerance: Duration) async throws {
        switch decision {
        case .proceed:
            return
        case .exceeded:
            let (capacity, interval) = bucket.withLock { ($0.capacity, $0.interval.seconds) }
            throw RateLimitError.exceeded(limit: capacity, interval: interval)
        case .wait(let wait):
            do {
                try await clock.sleep(wait, tolerance)
            } catch {
                bucket.withLock { $0.giveBack(now: clock.now()) }
                throw error
            }
        }
    }
}
