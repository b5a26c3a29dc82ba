/// A reading of the continuous clock, kept as a `Duration` since a fixed origin:
/// what the request path stores and compares instead of `ContinuousClock.Instant`,
/// from a `Fiber` call's timeout down to the connection's deadline timer.
///
/// Why: `ContinuousClock.Instant` is resilient (its layout belongs to the
/// Concurrency library), so an async function that holds one, or a value that
/// contains one, is sized at run time and takes that storage from the task
/// allocator on every call. `Duration` is frozen. A type of its own rather than
/// a bare `Duration`, so that a reading cannot be mixed up with a `FiberClock`'s,
/// whose origin is another; `now()` is a function of its own for the same
/// reason as the type: inlined into an async caller, its `Instant` would be such a local.
package struct MonotonicTime: Comparable, Sendable {
    /// The instant readings are measured from (the first use in the process).
    private static let origin = ContinuousClock.now

    private let sinceOrigin: Duration

    private init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    /// The reading of `instant`.
    package init(_ instant: ContinuousClock.Instant) { sinceOrigin = instant - Self.origin }

    /// The clock now.
    @inline(never)
    package static func now() -> MonotonicTime { MonotonicTime(sinceOrigin: ContinuousClock.now - origin) }

    /// The instant this reading stands for.
    package var instant: ContinuousClock.Instant { Self.origin + sinceOrigin }

    package static func + (time: MonotonicTime, duration: Duration) -> MonotonicTime {
        MonotonicTime(sinceOrigin: time.sinceOrigin + duration)
    }

    package static func - (later: MonotonicTime, earlier: MonotonicTime) -> Duration { later.sinceOrigin - earlier.sinceOrigin }

    package static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.sinceOrigin < b.sinceOrigin }
}
