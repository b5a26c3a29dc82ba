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

    /// This interceptor as a step of a chain, whose `run` the chain calls directly.
    var step: InlineStep { get }
}

/// One step of a chain. The built-ins are cases of their own so that the step
/// before calls their `run` directly: through a closure or the protocol, each
/// step cost a thunk's frame and two more task allocations, on every request.
/// Each is boxed: reading a step out of the chain then retains one reference,
/// where the bare struct would retain every closure and object it holds.
enum InlineStep: Sendable {
    case auth(Boxed<AuthInterceptor>)
    case retry(Boxed<RetryInterceptor>)
    case rateLimit(Boxed<RateLimitInterceptor>)
    case cache(Boxed<CacheInterceptor>)
    case encryption(Boxed<EncryptionInterceptor>)
    case logging(Boxed<LoggingInterceptor>)
    case metrics(Boxed<MetricsInterceptor>)
    /// Any other interceptor, called through the protocol.
    case custom(any Interceptor)
}

/// An immutable value behind one reference.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}

/// The steps of a pipeline and the function at its end (the transport), made once per client.
final class InlineChain: Sendable {
    let steps: [InlineStep]
    let end: InlineNext.Body

    init(steps: [InlineStep], end: @escaping InlineNext.Body) {
        self.steps = steps
        self.end = end
    }
}

/// The rest of the pipeline below a step, called as `next(request)`: the next
/// step of a chain, or a function (the `next` a caller of `intercept` passed).
struct InlineNext: Sendable {
    typealias Body = nonisolated(nonsending) @Sendable (FiberRequest) async throws -> FiberResponse

    private enum Rest: Sendable {
        case chain(InlineChain, position: Int)
        case body(Body)
    }

    private let rest: Rest

    /// The rest of the pipeline as a function.
    init(_ body: @escaping Body) { rest = .body(body) }

    private init(_ chain: InlineChain, position: Int) { rest = .chain(chain, position: position) }

    /// The pipeline of `interceptors` in front of `end`, the first outermost.
    static func chain(_ interceptors: [any Interceptor], around end: @escaping Body) -> InlineNext {
        let steps = interceptors.map { ($0 as? any InlineInterceptor)?.step ?? .custom($0) }
        return InlineNext(InlineChain(steps: steps, end: end), position: 0)
    }

    /// Sends `request` down the rest of the pipeline. Inlined into each step's `run`,
    /// so that the next step's `run` is called from there, with no frame between.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: FiberRequest) async throws -> FiberResponse {
        switch rest {
        case .body(let body):
            return try await body(request)
        case .chain(let chain, let position):
            guard position < chain.steps.count else { return try await chain.end(request) }
            let next = InlineNext(chain, position: position + 1)
            switch chain.steps[position] {
            case .auth(let step): return try await step.value.run(request, next: next)
            case .retry(let step): return try await step.value.run(request, next: next)
            case .rateLimit(let step): return try await step.value.run(request, next: next)
            case .cache(let step): return try await step.value.run(request, next: next)
            case .encryption(let step): return try await step.value.run(request, next: next)
            case .logging(let step): return try await step.value.run(request, next: next)
            case .metrics(let step): return try await step.value.run(request, next: next)
            case .custom(let interceptor):
                return try await interceptor.intercept(request) { request in try await next(request) }
            }
        }
    }
}
