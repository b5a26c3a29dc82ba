import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

// The guide's advanced patterns, as written (the deduplicator's `next` is
// marked `@escaping`: it hands `next` to a task, which Swift allows only then).

struct HMACSigner: Interceptor {
    let name = "hmacSigner"
    let secret: SymmetricKey

    func intercept(
        _ request: FiberRequest,
        next: @Sendable (FiberRequest) async throws -> FiberResponse
    ) async throws -> FiberResponse {
        let payload = "\(request.httpMethod.rawValue):\(request.url.path):\(request.body?.base64EncodedString() ?? "")"
        let signature = HMAC<SHA256>.authenticationCode(
            for: Data(payload.utf8),
            using: secret
        )
        let hex = signature.map { String(format: "%02x", $0) }.joined()

        return try await next(
            request
                .header("X-Signature", hex)
                .header("X-Timestamp", "\(Int(Date().timeIntervalSince1970))")
        )
    }
}

actor OfflineQueue: Interceptor {
    nonisolated let name = "offlineQueue"
    private var queue: [FiberRequest] = []

    func intercept(
        _ request: FiberRequest,
        next: @Sendable (FiberRequest) async throws -> FiberResponse
    ) async throws -> FiberResponse {
        do {
            return try await next(request)
        } catch {
            if isNetworkError(error) {
                queue.append(request)
                throw error
            }
            throw error
        }
    }

    func flush(using transport: @Sendable (FiberRequest) async throws -> FiberResponse) async {
        let pending = queue
        queue.removeAll()
        for request in pending {
            _ = try? await transport(request)
        }
    }

    var pendingCount: Int { queue.count }

    // Linux: the transport's failures arrive as FiberError.networkError, not URLError.
    private func isNetworkError(_ error: Error) -> Bool {
        if case .networkError = error as? FiberError { return true }
        return (error as? URLError)?.code == .notConnectedToInternet
    }
}

actor Deduplicator: Interceptor {
    nonisolated let name = "dedup"
    private var inflight: [String: Task<FiberResponse, Error>] = [:]

    func intercept(
        _ request: FiberRequest,
        next: @escaping @Sendable (FiberRequest) async throws -> FiberResponse
    ) async throws -> FiberResponse {
        let key = "\(request.httpMethod.rawValue):\(request.url.absoluteString)"

        if let existing = inflight[key] {
            return try await existing.value
        }

        let task = Task { try await next(request) }
        inflight[key] = task

        defer { inflight[key] = nil }
        return try await task.value
    }
}

@Suite struct GuidePatternTests {
    @Test func hmacSigning() async throws {
        let secret = SymmetricKey(data: Data("s3cret".utf8))
        let (fiber, mock) = mockFiber([HMACSigner(secret: secret)])
        mock.stubAll(.ok())
        try await fiber.post("/orders", body: ["item": "book"])
        let sent = try #require(mock.lastRequest)
        let payload = "POST:/orders:\(sent.httpBody?.base64EncodedString() ?? "")"
        let expected = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: secret)
            .map { String(format: "%02x", $0) }.joined()
        #expect(sent.value(forHTTPHeaderField: "X-Signature") == expected)
        #expect(expected.count == 64)
        #expect(Int(sent.value(forHTTPHeaderField: "X-Timestamp") ?? "") != nil)
    }

    @Test func offlineQueueReplaysFailedRequests() async throws {
        let queue = OfflineQueue()
        let (fiber, mock) = mockFiber([queue])
        mock.stubAll(.failure(TransportError(.connectionRefused, operation: "connect")))
        await expectFiberError({ if case .networkError = $0 { true } else { false } }) {
            try await fiber.post("/events", body: ["n": 1])
        }
        #expect(await queue.pendingCount == 1)

        mock.stubAll(.created())
        await queue.flush { try await fiber.send($0) }
        #expect(await queue.pendingCount == 0)
        #expect(mock.requests.count == 2)  // the failed attempt and its replay
        #expect(mock.requests.last?.url?.path == "/events")
    }

    @Test func deduplicatorAsWritten() async throws {
        try await assertDeduplicates(Deduplicator())
    }

    @Test func builtInDeduplication() async throws {
        try await assertDeduplicates(DeduplicationInterceptor())
    }

    /// 20 identical GETs while the first is held at the transport: one exchange, 20 answers.
    private func assertDeduplicates(_ interceptor: any Interceptor) async throws {
        let gate = Gate()
        let transport = GatedTransport(gate: gate)
        let arrivals = Counter()
        let counting = AnyInterceptor("count") { request, next in
            arrivals.increment()
            return try await next(request)
        }
        let fiber = Fiber(baseURL: apiURL, interceptors: [counting, interceptor], transport: transport)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await fiber.get("/feed").text } }
            // The first exchange is held at the transport until every request has arrived.
            try await waitUntil { await gate.waiting >= 1 && arrivals.count == 20 }
            await gate.open()
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            #expect(bodies == Array(repeating: "GET /feed", count: 20))
        }
        #expect(transport.calls() < 20)
    }
}
