/// Readings of the continuous clock as `Duration`s since a fixed origin: what
/// the request path keeps and compares instead of `ContinuousClock.Instant`.
///
/// Why: `ContinuousClock.Instant` is resilient (its layout belongs to the
/// Concurrency library), so an async function that holds one, or a value that
/// contains one, is sized at run time and takes that storage from the task
/// allocator on every call; measured, that was a third of the task allocations
/// of a request through the seven built-ins. `Duration` is frozen. The reading
/// is a function of its own for the same reason: inlined into an async caller,
/// its `Instant` would be such a local.
enum MonotonicTime {
    /// The instant readings are measured from (the first use in the process).
    static let origin = ContinuousClock.now

    /// The time since `origin`.
    @inline(never)
    static func now() -> Duration { ContinuousClock.now - origin }

    /// The instant that a reading stands for.
    static func instant(_ reading: Duration) -> ContinuousClock.Instant { origin + reading }

    /// The reading of `instant`.
    static func reading(_ instant: ContinuousClock.Instant) -> Duration { instant - origin }
}
