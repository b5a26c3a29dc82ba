import Fiber
import FiberRuntime
import Foundation

/// The wall clock of the cache: entries record when they arrived, and
/// freshness is their age against `now()`. Wall time rather than monotonic
/// time, because disk entries outlive the process. Injected so that tests
/// move time by hand and never sleep for a TTL.
public struct CacheClock: Sendable {
    /// The current time.
    public var now: @Sendable () -> Date

    /// A clock from its function.
    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// A wall clock that follows a `FiberClock` from `origin`: with FiberTesting's
    /// `TestClock().fiberClock`, time moves only when the test advances it. For virtual
    /// clocks: `origin` stands for the clock's zero, which for `.continuous` is its first
    /// use in the process, so a real clock here would run ahead of the time of day.
    public init(_ clock: FiberClock, origin: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.now = { origin.addingTimeInterval(clock.now().seconds) }
    }

    /// The system's clock.
    public static let system = CacheClock { Date() }
}
