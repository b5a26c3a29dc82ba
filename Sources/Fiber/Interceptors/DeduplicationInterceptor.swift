import FiberRuntime

/// Shares one exchange among identical requests in flight at the same time:
/// while a `GET` (or `HEAD`) for a URL is running, the same request gets its
/// response instead of going to the network again.
///
/// Requests are identical when method, URL and `Authorization` match. The
/// shared exchange runs in its own task, so cancelling the caller that started
/// it does not fail the others (a cancelled caller still gets the shared result).
public struct DeduplicationInterceptor: Interceptor {
    /// `"dedup"`.
    public let name = "dedup"
    private let methods: Set<HTTPMethod>
    private let flights = SingleFlight<CacheKey, FiberResponse>()

    /// Deduplicates requests with these methods (default `GET` and `HEAD`).
    public init(methods: Set<HTTPMethod> = [.get, .head]) { self.methods = methods }

    /// - Throws: what the shared exchange throws, to every caller that shares it.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        guard methods.contains(request.httpMethod) else { return try await next(request) }
        let traceID = TraceContext.traceID
        return try await flights.run(CacheInterceptor.key(for: request)) {
            try await TraceContext.$traceID.withValue(traceID) { try await next(request) }
        }
    }
}
