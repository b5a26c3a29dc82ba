/// An actor on the serial executor a transport prefers (its event loop), so
/// that `Fiber` can run a request's pipeline isolated to that executor.
///
/// Why: the runtime's event loop runs every job isolated to itself. Code that
/// is isolated to the loop, and `nonisolated(nonsending)` code it calls (the
/// pipeline, the built-in interceptors), then continues in place after every
/// `await`, where plain nonisolated code would go through the loop's queue to
/// get back to the generic executor. One actor per request costs less than one
/// such trip, and keeps no state between requests.
actor ExecutorIsolation {
    private let executor: any SerialExecutor

    init(_ executor: any SerialExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}
