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
}

/// The rest of the pipeline below a step, called as `next(request)`: the next
/// built-in (called directly, with no closure between them), a custom
/// interceptor (through the protocol), or the end of the chain.
struct InlineNext: Sendable {
    /// The end of a chain, such as the transport exchange.
    typealias End = nonisolated(nonsending) @Sendable (FiberRequest) async throws -> FiberResponse

    private indirect enum Step: Sendable {
        case inline(any InlineInterceptor, next: InlineNext)
        case custom(any Interceptor, next: InterceptorNext)
        case end(End)
    }

    private let step: Step

    /// A chain that is just `end`.
    init(_ end: @escaping End) { step = .end(end) }

    private init(_ step: Step) { self.step = step }

    /// Sends `request` down the rest of the chain.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: FiberRequest) async throws -> FiberResponse {
        switch step {
        case .inline(let interceptor, let next): try await interceptor.run(request, next: next)
        case .custom(let interceptor, let next): try await interceptor.intercept(request, next: next)
        case .end(let end): try await end(request)
        }
    }

    /// Folds `interceptors` around `end` once, from the transport outwards, so
    /// that a request costs no array walk: the first interceptor is outermost.
    static func chain(_ interceptors: [any Interceptor], around end: @escaping End) -> InlineNext {
        interceptors.reversed().reduce(InlineNext(end)) { next, interceptor in
            if let inline = interceptor as? any InlineInterceptor { return InlineNext(.inline(inline, next: next)) }
            return InlineNext(.custom(interceptor, next: { request in try await next(request) }))
        }
    }
}
