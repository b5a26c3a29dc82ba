#if canImport(Glibc)
import Glibc
#endif

/// A value behind a plain (non-priority-inheriting) pthread mutex.
///
/// `Synchronization.Mutex` on Linux uses priority-inheritance futexes, whose
/// every contended lock is a syscall; with eight threads submitting to one
/// loop that collapsed throughput by two orders of magnitude in the runtime
/// benchmark. A normal pthread mutex spins briefly and stays fast, so the
/// loop's inbox, the one lock many threads contend for, uses this.
/// (`package`: the Fiber API's shared state uses it too, also because
/// ThreadSanitizer cannot see the hand-over of a priority-inheritance futex.)
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched while `mutex` is held, which also
    // makes the dynamic exclusivity check on it redundant.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        // Adaptive: spin a little before sleeping, as the critical sections are a few instructions.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
