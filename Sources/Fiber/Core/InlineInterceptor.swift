/// How a client's interceptors run: a chain folded once, when the client is made.
///
/// The chain is a list of `ChainNode`s, one per interceptor, the first outermost; each
/// holds its step and `next`, the rest of the chain below it, which ends in the
/// transport's exchange. A request walks it in the caller's task: `next(request)`
/// finds the next step and calls it.
///
/// Every step is an `InlineInterceptor`, and the chain treats them all alike in two
/// ways. Before it enters a step it calls the step's `handleAtOnce(_:)`, the one place
/// that decides whether a step is passed over: a step with nothing left to do for the
/// request is, and costs no async frame. And it enters a step through `run(_:next:)`,
/// which is `nonisolated(nonsending)` (it stays on its caller's executor) and takes
/// `next` as a value rather than a closure.
///
/// They differ in how `run` is reached. The built-ins are cases of `InlineStep`, so the
/// chain calls their `run` directly; through the protocol, the return from every step
/// would go through an executor check. Any other interceptor is a `CustomStep`, whose
/// `run` calls the public `intercept(_:next:)` with `next` as a closure made once with
/// the chain, since the public protocol lets an interceptor keep `next` or hand it to
/// another task.
protocol InlineInterceptor: AnyObject, Sendable {
    /// Does at once all this step has to do for `request`, when that is all it has to
    /// do, and returns true: the chain then sends `request` straight on without entering
    /// `run`, and the step sees nothing of the response. Returns false, having done
    /// nothing, when the step must run. Called once for each request, just before the
    /// chain would enter `run`; the answer may change from one request to the next.
    func handleAtOnce(_ request: FiberRequest) -> Bool

    /// The step: what an interceptor's `intercept(_:next:)` does, with `next` as the
    /// chain's own value.
    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse
}

extension InlineInterceptor {
    /// Never: the step always runs.
    func handleAtOnce(_ request: FiberRequest) -> Bool { false }
}

/// A step of a chain: a built-in, whose `run` the chain calls directly, or any other
/// interceptor. The one list of the built-ins: a new one takes a case here, and the
/// compiler then points at every switch that must call it.
enum InlineStep: Sendable {
    case auth(AuthInterceptor)
    case retry(RetryInterceptor)
    case rateLimit(RateLimitInterceptor)
    case cache(CacheInterceptor)
    case encryption(EncryptionInterceptor)
    case logging(LoggingInterceptor)
    case metrics(MetricsInterceptor)
    case custom(CustomStep)

    /// `interceptor` as a step in front of `next`.
    init(_ interceptor: any Interceptor, next: InlineNext) {
        self = switch interceptor {
        case let step as AuthInterceptor: .auth(step)
        case let step as RetryInterceptor: .retry(step)
        case let step as RateLimitInterceptor: .rateLimit(step)
        case let step as CacheInterceptor: .cache(step)
        case let step as EncryptionInterceptor: .encryption(step)
        case let step as LoggingInterceptor: .logging(step)
        case let step as MetricsInterceptor: .metrics(step)
        default: .custom(CustomStep(interceptor, next: next))
        }
    }

    /// The step's `handleAtOnce(_:)`.
    func handleAtOnce(_ request: FiberRequest) -> Bool {
        switch self {
        case .auth(let step): step.handleAtOnce(request)
        case .retry(let step): step.handleAtOnce(request)
        case .rateLimit(let step): step.handleAtOnce(request)
        case .cache(let step): step.handleAtOnce(request)
        case .encryption(let step): step.handleAtOnce(request)
        case .logging(let step): step.handleAtOnce(request)
        case .metrics(let step): step.handleAtOnce(request)
        case .custom(let step): step.handleAtOnce(request)
        }
    }
}

/// An interceptor other than the built-ins, as a step of the chain.
final class CustomStep: InlineInterceptor {
    private let interceptor: any Interceptor
    /// The rest of the chain below this step, as the closure the public protocol takes.
    private let next: InterceptorNext

    init(_ interceptor: any Interceptor, next: InlineNext) {
        self.interceptor = interceptor
        self.next = { try await next($0) }
    }

    /// Calls the interceptor with the closure made with the chain, which goes to the
    /// same rest of the chain as `next`.
    nonisolated(nonsending) func run(_ request: FiberRequest, next _: InlineNext) async throws -> FiberResponse {
        try await interceptor.intercept(request, next: next)
    }
}

/// A step of the chain and what follows it. Each node holds only what is below it,
/// so a custom step's `next` closure makes no cycle.
final class ChainNode: Sendable {
    let step: InlineStep
    let next: InlineNext

    init(_ step: InlineStep, next: InlineNext) {
        self.step = step
        self.next = next
    }
}

/// The rest of the pipeline below a step, called as `next(request)`: the next
/// step of a chain, or a function (the transport at the chain's end, or the
/// `next` a caller of a built-in's `intercept(_:next:)` passed).
struct InlineNext: Sendable {
    typealias End = nonisolated(nonsending) @Sendable (FiberRequest) async throws -> FiberResponse

    private enum Rest: Sendable {
        case step(ChainNode)
        case end(End)
    }

    private let rest: Rest

    /// The rest of the pipeline as a function.
    init(_ end: @escaping End) { rest = .end(end) }

    private init(_ node: ChainNode) { rest = .step(node) }

    /// The pipeline of `interceptors` in front of `end`, the first outermost.
    static func chain(_ interceptors: [any Interceptor], around end: @escaping End) -> InlineNext {
        interceptors.reversed().reduce(InlineNext(end)) { next, interceptor in
            InlineNext(ChainNode(InlineStep(interceptor, next: next), next: next))
        }
    }

    /// Sends `request` to the first step below that does not handle it at once, or to
    /// the end. Inlined into each step's `run`, so that the next step's `run` is called
    /// from there, with no frame of this function's between the two.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: FiberRequest) async throws -> FiberResponse {
        switch firstStep(for: request) {
        case .end(let end):
            return try await end(request)
        case .step(let node):
            switch node.step {
            case .auth(let step): return try await step.run(request, next: node.next)
            case .retry(let step): return try await step.run(request, next: node.next)
            case .rateLimit(let step): return try await step.run(request, next: node.next)
            case .cache(let step): return try await step.run(request, next: node.next)
            case .encryption(let step): return try await step.run(request, next: node.next)
            case .logging(let step): return try await step.run(request, next: node.next)
            case .metrics(let step): return try await step.run(request, next: node.next)
            case .custom(let step): return try await step.run(request, next: node.next)
            }
        }
    }

    /// The rest of the pipeline from its first step that does not handle `request` at once.
    private func firstStep(for request: FiberRequest) -> Rest {
        var rest = self.rest
        while case .step(let node) = rest, node.step.handleAtOnce(request) {
            rest = node.next.rest
        }
        return rest
    }
}
