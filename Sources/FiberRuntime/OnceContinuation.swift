import Synchronization

/// A one-shot result that several parties may race to deliver (completion,
/// cancellation, shutdown): the first delivery wins, the others are ignored.
/// A result delivered before anybody waits is kept for the waiter, so work
/// can be started before the caller suspends.
///
/// The continuation is an unsafe one: the state below already guarantees it
/// is resumed exactly once, and a checked one allocates a box per wait.
final class OnceContinuation<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(UnsafeContinuation<T, any Error>)
        case delivered(Result<T, any Error>)
        case consumed
    }

    // Synchronization's Mutex, not `Locked`: inline, so a continuation costs no allocation on
    // the request path. Its contended hand-over is invisible to ThreadSanitizer, but waiter and
    // resumer are almost always the same loop thread.
    private let state = Mutex(State.idle)

    /// Suspends until the first `resume` (or returns at once if it already
    /// happened). `start` runs after the waiter is installed.
    func wait(isolation: isolated (any Actor)? = #isolation, _ start: () -> Void = {}) async throws -> T {
        try await withUnsafeThrowingContinuation(isolation: isolation) { c in
            let early = state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .idle:
                    state = .waiting(c)
                    return nil
                case .delivered(let result):
                    state = .consumed
                    return result
                case .waiting, .consumed:
                    preconditionFailure("OnceContinuation waited on twice")
                }
            }
            if let early { c.resume(with: early) } else { start() }
        }
    }

    /// Delivers `result`, unless something delivered first. Returns true if this call did.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        let waiter = state.withLock { state -> UnsafeContinuation<T, any Error>?? in
            switch state {
            case .idle:
                state = .delivered(result)
                return .some(nil)
            case .waiting(let c):
                state = .consumed
                return .some(c)
            case .delivered, .consumed:
                return nil
            }
        }
        guard let waiter else { return false }
        waiter?.resume(with: result)
        return true
    }
}
