/// The rest of the pipeline below an interceptor: the next interceptor, or the transport.
public typealias InterceptorNext = @Sendable (FiberRequest) async throws -> FiberResponse

/// A step of the request pipeline: it sees every request on its way out and
/// every response (or error) on its way back.
///
/// An interceptor may change the request before calling `next`, change the
/// response it returns, answer without calling `next` at all (a cache hit), or
/// call `next` several times (a retry). Interceptors run in the caller's task,
/// the first one given to the client outermost:
///
/// ```
/// Request  → [first] → [second] → … → transport
/// Response ← [first] ← [second] ← … ←
/// ```
///
/// `next` is `@escaping` so that an interceptor may hand it to another task
/// (request deduplication does); a conformance may declare it without
/// `@escaping`, as the guide's examples do.
public protocol Interceptor: Sendable {
    /// A short name for logs and `FiberError.interceptor`.
    var name: String { get }

    /// Handles `request`, usually by calling `next` with it or a changed copy.
    ///
    /// - Throws: what `next` throws, or the interceptor's own error.
    func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse
}

/// An interceptor made of a closure.
///
/// ```swift
/// let timing = AnyInterceptor("timing") { request, next in
///     let start = Date()
///     let response = try await next(request)
///     print("Request took \(Date().timeIntervalSince(start))s")
///     return response
/// }
/// ```
public struct AnyInterceptor: Interceptor {
    /// The name given at creation.
    public let name: String
    private let body: @Sendable (FiberRequest, @escaping InterceptorNext) async throws -> FiberResponse

    /// An interceptor named `name` that runs `body`.
    public init(_ name: String,
                _ body: @escaping @Sendable (FiberRequest, @escaping InterceptorNext) async throws -> FiberResponse) {
        self.name = name
        self.body = body
    }

    /// - Throws: what the closure throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await body(request, next)
    }
}
