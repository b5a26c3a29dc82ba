import Synchronization

/// A continuation that may be resumed from several places (completion,
/// cancellation, shutdown) of which only the first counts.
final class OnceContinuation<T: Sendable>: Sendable {
    private let slot = Mutex<CheckedContinuation<T, any Error>?>(nil)
    private let done = Mutex(false)

    /// Suspends until the first `resume`; `start` runs with the continuation installed.
    func wait(isolation: isolated (any Actor)? = #isolation, _ start: () -> Void) async throws -> T {
        try await withCheckedThrowingContinuation(isolation: isolation) { c in
            let alreadyDone = done.withLock { $0 }
            if alreadyDone {
                c.resume(throwing: CancellationError())
                return
            }
            slot.withLock { $0 = c }
            start()
        }
    }

    /// Resumes the waiter with `result`, unless something resumed it first. Returns true if this call did.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return false }
        let c = slot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        c?.resume(with: result)
        return true
    }
}
