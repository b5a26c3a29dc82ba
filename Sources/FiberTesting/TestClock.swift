import Fiber
import FiberRuntime

/// A virtual `FiberClock` for tests: time stands still until a sleep or
/// `advance(by:)` moves it, and every sleep is recorded. A sleep returns at
/// once, having moved the time forward by its duration, so retry backoffs,
/// rate-limit waits and cache expiry run without real waiting.
public final class TestClock: Sendable {
    private struct State {
        var now: Duration = .zero
        var sleeps: [Duration] = []
    }

    private let state = Locked(State())

    /// A clock at time zero.
    public init() {}

    /// The current virtual time.
    public var now: Duration { state.withLock { $0.now } }

    /// Every sleep asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves time forward.
    public func advance(by duration: Duration) { state.withLock { $0.now += duration } }

    /// The clock as components take it.
    public var fiberClock: FiberClock {
        FiberClock(
            now: { self.now },
            sleep: { duration, _ in
                try Task.checkCancellation()
                self.state.withLock { $0.sleeps.append(duration); $0.now += duration }
            })
    }
}
