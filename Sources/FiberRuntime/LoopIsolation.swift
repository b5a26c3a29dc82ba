/// An actor whose serial executor is its loop's: code that takes it as its
/// `isolated` parameter runs isolated to the loop, without an actor of its own.
/// Each loop has one (`EventLoop.isolation`), so none is made per use.
///
/// Fiber runs each request's pipeline isolated to the transport's loop: with
/// the loop as the pipeline's isolation, the suspensions around the transport
/// resume in place; run unisolated in a task that only prefers the loop, a
/// request through `Fiber.send` cost more CPU, the more so with interceptors
/// (`Docs/Performance.md`).
package actor LoopIsolation {
    private let executor: LoopSerialExecutor

    init(_ executor: LoopSerialExecutor) { self.executor = executor }

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}
