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
