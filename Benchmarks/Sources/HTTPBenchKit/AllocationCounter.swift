import CBenchSupport

/// Counts allocations in the whole process with the interposer of `CBenchSupport`
/// (every thread's: the loops' as well as the caller's).
public enum AllocationCounter {
    /// Allocations, frees and bytes requested since `start()`.
    public struct Counts: Sendable {
        public var allocations: UInt64
        public var frees: UInt64
        public var bytes: UInt64
    }

    /// Sets the counts to zero and starts counting.
    public static func start() {
        fiber_alloc_counts_reset()
        fiber_alloc_counting_set(1)
    }

    /// Stops counting and returns the counts.
    @discardableResult
    public static func stop() -> Counts {
        fiber_alloc_counting_set(0)
        let c = fiber_alloc_counts_get()
        return Counts(allocations: c.allocations, frees: c.frees, bytes: c.bytes)
    }

    /// True when the Swift runtime's allocations reach the interposed malloc.
    public static let works: Bool = {
        start()
        let box = Box(value: 42)
        withExtendedLifetime(box) {}
        return stop().allocations > 0
    }()

    private final class Box {
        let value: Int
        @inline(never) init(value: Int) { self.value = value }
    }
}
