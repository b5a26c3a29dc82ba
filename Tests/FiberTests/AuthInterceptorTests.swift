import Fiber
import FiberTesting
import Foundation
import FiberRuntime
import Testing

actor TokenStore {
    private(set) var accessToken = "t0"
    private(set) var refreshes = 0
    var failRefresh = false

    @discardableResult
    func refresh() async throws -> String {
        struct RefreshFailed: Error {}
        if failRefresh { throw RefreshFailed() }
        refreshes += 1
        accessToken = "t\(refreshes)"
        return accessToken
    }

    func setFailing() { failRefresh = true }
}


@Suite struct AuthInterceptorTests {
    @Test func injectsToken() async throws {
        // The README's "Testing Interceptors" example.
        let url = apiURL
        let auth = AuthInterceptor(tokenProvider: { "my-token" })
        let mock = MockTransport()
        mock.stubAll(.ok())

        let fiber = Fiber(baseURL: url, interceptors: [auth], transport: mock)
        _ = try await fiber.get("/secure")

        let header = mock.lastRequest?.value(forHTTPHeaderField: "Authorization")
        #expect(header == "Bearer my-token")
    }

    @Test func everyRequestCarriesTheTokenOfItsTime() async throws {
        // The header value is remembered per token: a new token must never get the old value.
        // The third and fourth are one text in two Unicode forms (é, and e with a combining accent):
        // equal as `String`s, and each must be sent as given.
        // The fifth and sixth are also equal as `String`s and of one length in bytes (5), with
        // different bytes; the last two differ in their last byte only.
        let long = "long-token-" + String(repeating: "x", count: 40)
        let tokens = Locked(["a", "b", "caf\u{E9}", "cafe\u{301}", "\u{1E0B}\u{323}", "\u{1E0D}\u{307}", long + "1", long + "2"])
        let auth = AuthInterceptor(tokenProvider: { tokens.withLock { $0.removeFirst() } })
        let mock = MockTransport()
        mock.stubAll(.ok())
        let fiber = Fiber(baseURL: apiURL, interceptors: [auth], transport: mock)
        for _ in 0..<8 { _ = try await fiber.get("/secure") }
        let sent = mock.requests.map { Array(($0.value(forHTTPHeaderField: "Authorization") ?? "").utf8) }
        let expected = ["Bearer a", "Bearer b", "Bearer caf\u{E9}", "Bearer cafe\u{301}", "Bearer \u{1E0B}\u{323}",
                        "Bearer \u{1E0D}\u{307}", "Bearer " + long + "1", "Bearer " + long + "2"].map { Array($0.utf8) }
        #expect(sent == expected)
    }

    @Test func apiKeyHeaderWithoutPrefixAndNoTokenNoHeader() async throws {
        let (fiber, mock) = mockFiber([AuthInterceptor(tokenProvider: { "k" }, headerName: "X-API-Key", headerPrefix: "")])
        mock.stubAll(.ok())
        try await fiber.get("/")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "X-API-Key") == "k")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "Authorization") == nil)

        let (anonymous, mock2) = mockFiber([AuthInterceptor(tokenProvider: { nil })])
        mock2.stubAll(.ok())
        try await anonymous.get("/")
        #expect(mock2.lastRequest?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func refreshesOnceOn401AndReplays() async throws {
        let store = TokenStore()
        let auth = AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { try await store.refresh() })
        let (fiber, mock) = mockFiber([auth])
        mock.stub { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t1" ? .ok(body: "ok") : .unauthorized() }
        let response = try await fiber.get("/me")
        #expect(response.text == "ok")
        #expect(await store.refreshes == 1)
        #expect(mock.requests.compactMap { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t0", "Bearer t1"])
    }

    @Test func stillUnauthorizedAfterRefreshReturnsTheResponse() async throws {
        let store = TokenStore()
        let auth = AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { try await store.refresh() })
        let (fiber, mock) = mockFiber([auth])
        mock.stubAll(.unauthorized())
        let response = try await fiber.get("/me")
        #expect(response.statusCode == 401)
        #expect(mock.requests.count == 2)  // one replay, no loop
    }

    @Test func refreshFailureIsAnInterceptorError() async throws {
        let store = TokenStore()
        await store.setFailing()
        let auth = AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { try await store.refresh() })
        let (fiber, mock) = mockFiber([auth])
        mock.stubAll(.unauthorized())
        await expectFiberError({ if case .interceptor("auth", _) = $0 { true } else { false } }) {
            try await fiber.get("/me")
        }
        #expect(mock.requests.count == 1)
    }

    @Test func customUnauthorizedRule() async throws {
        let store = TokenStore()
        let auth = AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { try await store.refresh() },
                                   isUnauthorized: { $0.statusCode == 419 })
        let (fiber, mock) = mockFiber([auth])
        mock.stub { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t0" ? .status(419) : .ok() }
        #expect(try await fiber.get("/").statusCode == 200)
        #expect(await store.refreshes == 1)
    }

    /// 1,000 concurrent requests all get a 401 with the old token: one refresh, every request replayed once.
    @Test func concurrentUnauthorizedShareOneRefresh() async throws {
        let store = TokenStore()
        let refreshCalls = Counter()
        let auth = AuthInterceptor(
            tokenProvider: { await store.accessToken },
            tokenRefresher: { refreshCalls.increment(); _ = try await store.refresh() })
        let (fiber, mock) = mockFiber([auth])
        mock.stub { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t1" ? .ok(body: "ok") : .unauthorized() }
        let oks = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 { group.addTask { try await fiber.get("/me").isSuccess } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(oks == 1000)
        #expect(refreshCalls.count == 1)
        #expect(auth.refreshCount == 1)
        #expect(mock.requests.count <= 2000)
    }

    /// Over the real transport the provider runs on the loop that carries the request
    /// (the task prefers it: no thread switch), whether written in place or stored.
    @Test func providersRunOnTheRequestsLoop() async throws {
        try await withLiveServer { server, transport in
            server.route("/me") { request in .ok(request.header("Authorization") ?? "none") }
            let onLoop = Locked<[Bool]>([])
            let inPlace = AuthInterceptor(tokenProvider: {
                onLoop.withLock { $0.append(EventLoop.current != nil) }
                return "in-place"
            })
            let base = URL(string: server.baseURL)!
            let first = try await Fiber(baseURL: base, interceptors: [inPlace], transport: transport).get("/me")
            #expect(first.text == "Bearer in-place")

            let stored: @Sendable () async -> String? = {
                onLoop.withLock { $0.append(EventLoop.current != nil) }
                return "stored"
            }
            let second = try await Fiber(baseURL: base, interceptors: [AuthInterceptor(tokenProvider: stored)],
                                         transport: transport).get("/me")
            #expect(second.text == "Bearer stored")
            #expect(onLoop.withLock { $0 } == [true, true])
        }
    }
}
