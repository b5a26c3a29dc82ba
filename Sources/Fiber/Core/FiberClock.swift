/// The time source and sleeper of the components that wait or expire things
/// (retry backoff, rate limit, cache TTL), injectable so that tests run in
/// virtual time.
public struct FiberClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    public var now: @Sendable () -> Duration
    /// Sleeps for a duration, with a tolerance; throws `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (_ duration: Duration, _ tolerance: Duration?) async throws -> Void

    /// A clock from its two functions.
    public init(now: @escaping @Sendable () -> Duration,
                sleep: @escaping @Sendable (_ duration: Duration, _ tolerance: Duration?) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's monotonic clock and `Task.sleep`.
    public static let continuous: FiberClock = {
        let clock = ContinuousClock()
        let origin = clock.now
        return FiberClock(
            now: { clock.now - origin },
            sleep: { duration, tolerance in try await Task.sleep(for: duration, tolerance: tolerance, clock: clock) }
        )
    }()
}

extension Duration {
    /// A duration from seconds given as a `Double` (negative or non-finite values give zero).
    static func seconds(clamping value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        return .nanoseconds(Int64(min(value, 1e9) * 1e9))
    }
}
