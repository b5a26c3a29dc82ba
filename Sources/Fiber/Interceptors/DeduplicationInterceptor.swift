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
    private let inFlight = InFlightTable()

    /// Deduplicates requests with these methods (default `GET` and `HEAD`).
    public init(methods: Set<HTTPMethod> = [.get, .head]) { self.methods = methods }

    /// - Throws: what the shared exchange throws, to every caller that shares it.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        guard methods.contains(request.httpMethod) else { return try await next(request) }
        let key = CacheInterceptor.key(for: request)
        let traceID = TraceContext.traceID
        let task = inFlight.task(for: key) {
            Task {
                defer { inFlight.remove(key) }
                return try await TraceContext.$traceID.withValue(traceID) { try await next(request) }
            }
        }
        return try await task.value
    }
}

/// The exchanges in flight by key.
final class InFlightTable: Sendable {
    private let tasks = Locked<[CacheKey: Task<FiberResponse, any Error>]>([:])

    /// The task in flight for `key`, or a new one from `make` (registered before it can finish).
    func task(for key: CacheKey, make: () -> Task<FiberResponse, any Error>) -> Task<FiberResponse, any Error> {
        tasks.withLock { tasks in
            if let running = tasks[key] { return running }
            let task = make()
            tasks[key] = task
            return task
        }
    }

    func remove(_ key: CacheKey) { _ = tasks.withLock { $0.removeValue(forKey: key) } }

    var count: Int { tasks.withLock { $0.count } }
}
