/// A callback scheduled on a loop, which can be cancelled until it runs.
public struct ScheduledTask: Sendable {
    private let cancelAction: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    /// Cancels the callback if it has not run yet; safe from any thread, and more than once.
    public func cancel() { cancelAction() }
}

/// The point in time after which an operation is abandoned.
public struct DeadlineExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    /// How long the operation was allowed.
    public let timeout: Duration
    public var description: String { "deadline of \(timeout) exceeded" }
}

extension EventLoop {
    /// Runs `work` on the loop after `delay`, unless cancelled first.
    ///
    /// - Throws: `EventLoopError.shutdown` once the loop has been shut down.
    @discardableResult
    public func scheduleTask(in delay: Duration, _ work: @escaping @Sendable () -> Void) throws(EventLoopError) -> ScheduledTask {
        let box = TimerBox()
        try execute { [self] in
            guard !box.cancelled, let timer = try? LoopTimer(on: self) else { return }
            box.timer = timer
            timer.start(after: delay) {
                timer.close()
                box.timer = nil
                work()
            }
        }
        return ScheduledTask { [self] in
            try? execute {
                box.cancelled = true
                box.timer?.close()
                box.timer = nil
            }
        }
    }

    /// Suspends the caller for `duration`, timed by this loop.
    ///
    /// - Throws: `CancellationError` at once when the task is cancelled;
    ///   `EventLoopError.shutdown` if the loop shuts down first.
    public func sleep(for duration: Duration) async throws {
        let once = OnceContinuation<Void>()
        let box = TimerBox()
        try await withTaskCancellationHandler {
            try await once.wait {
                do {
                    try execute { [self] in
                        guard !box.cancelled else { return }
                        do {
                            let timer = try LoopTimer(on: self)
                            box.timer = timer
                            timer.onClose = { once.resume(with: .failure(EventLoopError.shutdown)) }
                            timer.start(after: duration) {
                                once.resume(with: .success(()))
                                timer.close()
                            }
                        } catch {
                            once.resume(with: .failure(EventLoopError.shutdown))
                        }
                    }
                } catch {
                    once.resume(with: .failure(error))
                }
            }
        } onCancel: {
            if once.resume(with: .failure(CancellationError())) {
                try? execute {
                    box.cancelled = true
                    box.timer?.close()
                }
            }
        }
    }

    /// Runs `operation`, cancelling it and throwing `DeadlineExceeded` if it
    /// takes longer than `timeout`. The operation must honour cancellation.
    ///
    /// - Throws: what `operation` throws, or `DeadlineExceeded`.
    public func withTimeout<T: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask { [self] in
                try await sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw DeadlineExceeded(timeout: timeout)
            }
            return value
        }
    }
}

/// State shared between a timer's scheduling job and its cancellation job;
/// both run on the loop thread, in order.
private final class TimerBox: @unchecked Sendable {
    // @unchecked: only touched by jobs running on one loop's thread.
    var cancelled = false
    var timer: LoopTimer?
}
