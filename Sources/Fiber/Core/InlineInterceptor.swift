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
/// (The built-ins are final classes: reading a step out of the chain for a call
/// then retains one reference, where a struct was copied whole, every closure
/// and object in it retained, for each call.)
enum InlineStep: Sendable {
    case auth(AuthInterceptor)
    case retry(RetryInterceptor)
    case rateLimit(RateLimitInterceptor)
    case cache(CacheInterceptor)
    case encryption(EncryptionInterceptor)
    case logging(LoggingInterceptor)
    case metrics(MetricsInterceptor)
    /// Any other interceptor, called through the protocol.
    case custom(CustomStep)

    /// Whether this step has done, here and now, all it has to do for `request`, and has
    /// nothing to do with its response: the chain then goes straight on to the next step
    /// and never enters `run`. (An async call costs a frame and its bookkeeping, more than
    /// a built-in that logs to a logger that keeps nothing, say, does.) It may do the
    /// step's work (RateLimit takes its token here), so only the chain, about to send
    /// `request` on, asks it. Auth, Metrics and custom steps never pass a request on.
    func passesOn(_ request: FiberRequest) -> Bool {
        switch self {
        case .auth, .metrics, .custom: false
        case .retry(let step): step.passesOn(request)
        case .rateLimit(let step): step.passesOn(request)
        case .cache(let step): step.passesOn(request)
        case .encryption(let step): step.passesOn(request)
        case .logging(let step): step.passesOn(request)
        }
    }
}

/// An interceptor other than the built-ins, with `next`, the rest of the chain as a
/// closure made once with the chain. An object, so that every case of `InlineStep`
/// is one reference: a step is then copied out of the chain by one retain, where a
/// case holding an existential and a closure made each copy a call that switched
/// over every case (measured: 33 ns a request with the seven).
final class CustomStep: Sendable {
    let interceptor: any Interceptor
    let next: InterceptorNext

    init(_ interceptor: any Interceptor, next: @escaping InterceptorNext) {
        self.interceptor = interceptor
        self.next = next
    }
}

/// A step of a chain and what follows it, made once per client. Each node holds
/// only its successors, so a custom step's `next` closure makes no cycle.
///
/// Immutable, and it must stay so: `InlineNext.callAsFunction` walks the chain
/// through unretained references, safe only because no node, step or end is ever
/// replaced while a request may be on its way through it.
final class InlineChainNode: Sendable {
    let step: InlineStep
    let next: InlineNext
    /// Whether the step is of a kind that ever passes a request on (`InlineStep.passesOn`):
    /// stored, so that a step that never does is not read out of the node (and retained)
    /// to be asked: measured, two retains and two releases a request with the seven.
    private let asksToPassOn: Bool

    init(step: InlineStep, next: InlineNext) {
        self.step = step
        self.next = next
        switch step {  // the kinds `InlineStep.passesOn` answers false for without asking
        case .auth, .metrics, .custom: asksToPassOn = false
        case .retry, .rateLimit, .cache, .encryption, .logging: asksToPassOn = true
        }
    }

    /// The step's `passesOn`.
    func passesOn(_ request: FiberRequest) -> Bool { asksToPassOn && step.passesOn(request) }
}

/// The rest of the pipeline below a step, called as `next(request)`: the next
/// step of a chain, or a function (the transport at the chain's end, or the
/// `next` a caller of `intercept` passed).
struct InlineNext: Sendable {
    typealias Body = nonisolated(nonsending) @Sendable (FiberRequest) async throws -> FiberResponse

    /// Both cases are one reference, so that `next` is copied by one retain (see `CustomStep`).
    private enum Rest: Sendable {
        case step(InlineChainNode)
        case body(PipelineEnd)
    }

    /// A `let` (see `InlineChainNode`): `callAsFunction` reads the chain through it unretained.
    private let rest: Rest

    /// The rest of the pipeline as a function. (An allocation: a client's chain makes
    /// its end once, but a built-in's `intercept(_:next:)`, called directly, makes one a call.)
    init(_ body: @escaping Body) { rest = .body(PipelineEnd(body)) }

    private init(_ node: InlineChainNode) { rest = .step(node) }

    /// The pipeline of `interceptors` in front of `end`, the first outermost.
    static func chain(_ interceptors: [any Interceptor], around end: @escaping Body) -> InlineNext {
        interceptors.reversed().reduce(InlineNext(end)) { next, interceptor in
            let step = (interceptor as? any InlineInterceptor)?.step ?? .custom(CustomStep(interceptor, next: { try await next($0) }))
            return InlineNext(InlineChainNode(step: step, next: next))
        }
    }

    /// Sends `request` down the rest of the pipeline. Inlined into each step's `run`
    /// (a copy of this switch per call site), so that the next step's `run` is called
    /// from there, with no frame between.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: FiberRequest) async throws -> FiberResponse {
        switch firstStep(for: request) {
        case .end(let end):
            unowned(unsafe) let end = end.takeUnretainedValue()
            return try await end.body(request)
        case .step(let found):
            unowned(unsafe) let node = found.takeUnretainedValue()
            switch node.step {
            case .auth(let step): return try await step.run(request, next: node.next)
            case .retry(let step): return try await step.run(request, next: node.next)
            case .rateLimit(let step): return try await step.run(request, next: node.next)
            case .cache(let step): return try await step.run(request, next: node.next)
            case .encryption(let step): return try await step.run(request, next: node.next)
            case .logging(let step): return try await step.run(request, next: node.next)
            case .metrics(let step): return try await step.run(request, next: node.next)
            case .custom(let step): return try await step.interceptor.intercept(request, next: step.next)
            }
        }
    }

    /// What `callAsFunction` goes to: a step, or the end.
    private enum Target {
        case step(Unmanaged<InlineChainNode>)
        case end(Unmanaged<PipelineEnd>)
    }

    /// The rest of the pipeline from its first step that does not pass `request` on at once.
    ///
    /// Unretained: `self` holds the first node, each node the next, and the chain is
    /// immutable, so every node stays alive for as long as `callAsFunction` runs (an async
    /// method's `self` is held by its caller until it returns). Walked and dispatched
    /// through strong references, every step retained and released its node and the rest.
    private func firstStep(for request: FiberRequest) -> Target {
        var rest = Self.target(of: self.rest)
        while case .step(let node) = rest, node._withUnsafeGuaranteedRef({ $0.passesOn(request) }) {
            rest = node._withUnsafeGuaranteedRef { Self.target(of: $0.next.rest) }
        }
        return rest
    }

    private static func target(of rest: borrowing Rest) -> Target {
        switch rest {
        case .step(let node): .step(.passUnretained(node))
        case .body(let end): .end(.passUnretained(end))
        }
    }
}

/// The function at the end of a chain (or the `next` a caller of `intercept` passed).
/// Immutable, as `InlineChainNode` is, for the same reason.
final class PipelineEnd: Sendable {
    let body: InlineNext.Body

    init(_ body: @escaping InlineNext.Body) { self.body = body }
}
