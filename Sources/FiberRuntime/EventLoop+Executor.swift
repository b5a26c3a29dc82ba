/// The loop as an executor: actors pinned to a loop run their jobs on its
/// thread, and tasks that prefer it (`withTaskExecutorPreference`) do too.
extension EventLoop: SerialExecutor, TaskExecutor {
    /// Queues a job to run on the loop thread, in order after those before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.job(UnownedJob(job)))
    }

    /// The executor to return from an actor's `unownedExecutor` to pin it to this loop.
    public var executor: UnownedSerialExecutor { asUnownedSerialExecutor() }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func isIsolatingCurrentContext() -> Bool? { inEventLoop }

    public func checkIsolated() {
        precondition(inEventLoop, "expected to run on event loop \(index), but the current thread is not its thread")
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
