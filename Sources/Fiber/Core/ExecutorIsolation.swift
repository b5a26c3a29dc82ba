import FiberRuntime

/// An actor on the serial executor of the transport's event loop, so that
/// `Fiber` can run a request's pipeline isolated to that loop.
///
/// Why: measured, not derived. With the pipeline isolated to the loop (one
/// such actor per request), a keep-alive request through `Fiber.send` costs
/// 25–29 µs of CPU at 16 connections, and 30–33 µs with the seven built-ins;
/// run unisolated in the task that prefers the loop, 29–31 µs and 41–50 µs
/// (`Docs/Interceptors.md`). The built-ins' steps are `nonisolated(nonsending)`
/// and continue in place either way; what the isolation saves is in the
/// suspensions around the transport.
actor ExecutorIsolation {
    private let loop: EventLoop

    init(_ loop: EventLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
}
