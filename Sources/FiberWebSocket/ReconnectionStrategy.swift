/// When to reconnect after a connection ends: the delay before attempt
/// `n` (1-based), or nil to give up. Pure; jitter takes its random source.
public struct ReconnectionStrategy: Sendable {
    private let delayFor: @Sendable (_ attempt: Int, _ random: @Sendable () -> Double) -> Duration?

    /// A strategy from a function of the attempt number (1-based) and a uniform random number in 0..<1.
    public init(_ delay: @escaping @Sendable (_ attempt: Int, _ random: @Sendable () -> Double) -> Duration?) {
        delayFor = delay
    }

    /// The delay before attempt `attempt`, or nil to stop.
    public func delay(forAttempt attempt: Int, random: @Sendable () -> Double = { Double.random(in: 0..<1) }) -> Duration? {
        delayFor(attempt, random)
    }

    /// `baseDelay`, doubling each attempt (1s, 2s, 4s…) up to `maxDelay`, plus
    /// up to `jitter` × the delay at random, so that many clients cut off at
    /// once do not return at once. At most `maxAttempts` attempts.
    public static func exponentialBackoff(baseDelay: Double = 1, maxDelay: Double = 30, maxAttempts: Int = 10,
                                          jitter: Double = WebSocketDefaults.jitterFraction) -> ReconnectionStrategy {
        ReconnectionStrategy { attempt, random in
            guard attempt <= maxAttempts else { return nil }
            let exponent = min(Double(attempt - 1), 62)
            let delay = min(maxDelay, baseDelay * pow2(exponent))
            return .seconds(min(maxDelay, delay + delay * jitter * random()))
        }
    }

    /// The same delay every time, for at most `maxAttempts` attempts (unbounded by default).
    public static func fixedDelay(_ seconds: Double, maxAttempts: Int = .max) -> ReconnectionStrategy {
        ReconnectionStrategy { attempt, _ in attempt <= maxAttempts ? .seconds(seconds) : nil }
    }

    /// `step`, 2×`step`, 3×`step`… up to `maxDelay`, for at most `maxAttempts` attempts.
    public static func linearBackoff(step: Double = 1, maxDelay: Double = 30, maxAttempts: Int = 10) -> ReconnectionStrategy {
        ReconnectionStrategy { attempt, _ in attempt <= maxAttempts ? .seconds(min(maxDelay, step * Double(attempt))) : nil }
    }

    /// Never reconnect.
    public static let none = ReconnectionStrategy { _, _ in nil }

    private static func pow2(_ e: Double) -> Double {
        var v = 1.0
        for _ in 0..<Int(e) { v *= 2 }
        return v
    }
}
