/// The loop as a task executor: tasks that prefer it (`Task(executorPreference:)`,
/// `withTaskExecutorPreference`) run their code that belongs to no actor on
/// its thread, so that their hops to the loop's actors cost no thread switch.
extension EventLoop: TaskExecutor {
    /// Queues a job of a task that prefers this loop, in order after those before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.taskJob(UnownedJob(job)))
    }

    /// The executor to return from an actor's `unownedExecutor` to pin it to this loop.
    public var executor: UnownedSerialExecutor { serialExecutor.asUnownedSerialExecutor() }
}

/// The loop as the serial executor of the actors pinned to it.
///
/// A face of its own rather than the loop itself: the runtime enqueues an
/// actor's jobs here and a task's jobs on the loop, and the loop runs each
/// kind in its own isolation. Were both the same object, a task's code that
/// belongs to no actor would run as if isolated to the loop, and hop (through
/// the queue again) to where it belongs after every resumption.
final class LoopSerialExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `loop` is set once, by the loop's initializer, before any use.
    unowned(unsafe) var loop: EventLoop!

    func enqueue(_ job: consuming ExecutorJob) {
        _ = loop.enqueue(.actorJob(UnownedJob(job)))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func isIsolatingCurrentContext() -> Bool? { loop.inEventLoop }

    func checkIsolated() {
        precondition(loop.inEventLoop, "expected to run on event loop \(loop.index), but the current thread is not its thread")
    }
}

extension EventLoop {
    /// Runs `operation` in a task that prefers this loop as its executor, so
    /// that its hops between the loop's actors stay on the loop thread.
    ///
    /// A task that already prefers this loop (one started with
    /// `Task(executorPreference:)`, or a request inside another) runs it as it
    /// is: each added preference is a status record that every later hop of the
    /// task reads under the task's lock.
    ///
    /// - Throws: what `operation` throws.
    public func withPreference<T>(_ operation: () async throws -> T) async throws -> T {
        let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
        if preferred == UnownedTaskExecutor(ordinary: self) { return try await operation() }
        return try await withTaskExecutorPreference(self) { try await operation() }
    }
}
