/// An interceptor whose step runs on its caller's executor: the built-ins.
///
/// Why: the runtime's event loop runs every job isolated to itself, so each
/// call into a plain (`@concurrent`) nonisolated async function, and each
/// return from one to code that must get back to the generic executor, goes
/// through the loop's queue: three trips per interceptor, about half a
/// microsecond each, more than most built-ins cost. `run` is
/// `nonisolated(nonsending)`: it stays on whatever executor calls it, so a
/// chain of built-ins run from code isolated to the loop (`Fiber.perform`)
/// costs no trip at all. `intercept(_:next:)` stays as the protocol declares it
/// (custom interceptors and direct callers use it) and calls `run`.
protocol InlineInterceptor: Interceptor {
    /// The interceptor's step: what `intercept(_:next:)` does.
    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse

    /// `run` in front of `next`: `InlineNext { try await run($0, next: next) }`, written in
    /// each conforming type so that the call to `run` is direct (a default here would
    /// reach it through the protocol, one more async frame per request).
    func linked(to next: InlineNext) -> InlineNext
}

/// The rest of the pipeline below a step, called as `next(request)`: the next
/// built-in's step, a custom interceptor (called through the protocol), or the
/// end of the chain.
struct InlineNext: Sendable {
    typealias Body = nonisolated(nonsending) @Sendable (FiberRequest) async throws -> FiberResponse

    private let body: Body

    /// The rest of the pipeline as a function.
    init(_ body: @escaping Body) { self.body = body }

    /// Sends `request` down the rest of the chain.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: FiberRequest) async throws -> FiberResponse {
        try await body(request)
    }

    /// Folds `interceptors` around `end` once, from the transport outwards, so
    /// that a request costs no array walk: the first interceptor is outermost.
    static func chain(_ interceptors: [any Interceptor], around end: @escaping Body) -> InlineNext {
        interceptors.reversed().reduce(InlineNext(end)) { next, interceptor in
            if let inline = interceptor as? any InlineInterceptor { return inline.linked(to: next) }
            let rest: InterceptorNext = { request in try await next(request) }
            return InlineNext { request in try await interceptor.intercept(request, next: rest) }
        }
    }
}
