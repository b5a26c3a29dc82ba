/// The retry delay rule of the guide, as a pure value:
/// `delay = min(baseDelay * base^(attempt-1), maxDelay) * (1 ± jitter)`,
/// so attempt 1 waits about `baseDelay` (0.5 s: 0.38–0.63 s with ±25 %).
public struct Backoff: Sendable, Hashable {
    /// Delay of the first retry, in seconds.
    public var baseDelay: Double
    /// Upper bound of the delay before jitter, in seconds.
    public var maxDelay: Double
    /// Growth per attempt (`FiberDefaults.exponentialBackoffBase`).
    public var multiplier: Double
    /// Spread, as a fraction of the delay (`FiberDefaults.jitterFraction`).
    public var jitterFraction: Double

    /// A rule from its parts.
    public init(baseDelay: Double, maxDelay: Double, multiplier: Double, jitterFraction: Double) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitterFraction = jitterFraction
    }

    /// The delay before retry number `attempt` (from 1), with `unitRandom` in
    /// -1...1 choosing where in the jitter band it falls (0: the middle).
    public func delay(attempt: Int, unitRandom: Double) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let capped = min(baseDelay * pow(multiplier, exponent), maxDelay)
        let jitter = 1 + jitterFraction * min(1, max(-1, unitRandom))
        return .seconds(clamping: capped * jitter)
    }
}

/// `base^exponent` for the few exponents a retry policy needs, without Foundation.
private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(min(exponent, 1024))
    while remaining > 0 && result.isFinite {
        result *= base
        remaining -= 1
    }
    return result
}
