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
///
/// Copies share one value and one mutex, held in a single allocation.
package struct Locked<Value>: @unchecked Sendable {
    // @unchecked: the value is only touched while the mutex is held.
    private let storage: Storage

    package init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            // Adaptive: spin a little before sleeping, as the critical sections are a few instructions.
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        }
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value as the header and the mutex as the one element of a
    /// `ManagedBuffer`: both live in the object itself, at stable addresses.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            // The header (the value) is destroyed by `ManagedBuffer`; the element is the subclass's.
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}
