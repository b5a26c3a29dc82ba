/// The rate limiter's rule as a pure value: a bucket of `capacity` tokens
/// that refills continuously at `capacity` per `interval`. A request takes a
/// token; when none is left it may reserve the next one (the count goes below
/// zero) and wait until it is due, unless that is longer than it may wait.
/// Reservations are served in order, so waiting requests are never starved.
struct TokenBucket: Sendable, Equatable {
    enum Decision: Equatable {
        /// Go now.
        case proceed
        /// A token is reserved; go after this wait.
        case wait(Duration)
        /// The wait would be longer than allowed; nothing was reserved.
        case exceeded
    }

    let capacity: Int
    let interval: Duration
    private(set) var tokens: Double
    private var lastRefill: Duration
    /// Tokens per second, worked out once: reading a `Duration` in seconds divides a 128-bit integer.
    private let rate: Double

    init(capacity: Int, interval: Duration, now: Duration) {
        self.capacity = max(1, capacity)
        self.interval = interval > .zero ? interval : .nanoseconds(1)
        self.tokens = Double(self.capacity)
        self.lastRefill = now
        self.rate = Double(self.capacity) / self.interval.seconds
    }

    /// A request arrives at `now` and may wait at most `maxWait`.
    mutating func take(now: Duration, maxWait: Duration) -> Decision {
        if takeAtHand(now: now) { return .proceed }
        let wait = Duration.seconds(clamping: (1 - tokens) / rate)
        guard wait <= maxWait else { return .exceeded }
        tokens -= 1
        return .wait(wait)
    }

    /// Takes a token if one is at hand at `now` (then no request is waiting: reservations
    /// take the count below one); reserves nothing otherwise.
    mutating func takeAtHand(now: Duration) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// A reserved token was not used (its request was cancelled while waiting).
    mutating func giveBack(now: Duration) {
        refill(now: now)
        tokens = min(Double(capacity), tokens + 1)
    }

    private mutating func refill(now: Duration) {
        guard now > lastRefill else { return }
        tokens = min(Double(capacity), tokens + (now - lastRefill).seconds * rate)
        lastRefill = now
    }
}
