import Fiber
import Foundation
import FiberRuntime

/// A `FiberTransport` that answers from stubs and records every request, for
/// testing code above the transport without a network.
///
/// ```swift
/// let mock = MockTransport()
/// mock.stubAll(.ok(body: #"{"id": 1}"#))
/// let fiber = Fiber(baseURL: URL(string: "https://api.example.com")!, transport: mock)
/// _ = try await fiber.get("/users/1")
/// #expect(mock.lastRequest?.url?.path == "/users/1")
/// ```
///
/// Stubs are tried in the order they were added; the first that returns a
/// response answers. Then the default (`stubDefault`), else `404` with a body
/// naming the request. Safe to use from many tasks at once.
public final class MockTransport: FiberTransport {
    /// A conditional stub: a response, or nil to let the next stub answer.
    public typealias Stub = @Sendable (TransportRequest) -> StubResponse?

    private struct State {
        var stubs: [Stub] = []
        var fallback: (@Sendable (TransportRequest) -> StubResponse)?
        var requests: [TransportRequest] = []
    }

    private let state = Locked(State())

    /// A transport with no stubs.
    public init() {}

    /// Answers every request with `response` (removing other stubs).
    public func stubAll(_ response: StubResponse) {
        state.withLock { $0.stubs = []; $0.fallback = { _ in response } }
    }

    /// Adds a conditional stub: return nil to fall through to the next.
    public func stub(_ stub: @escaping Stub) {
        state.withLock { $0.stubs.append(stub) }
    }

    /// Answers requests that no stub matched.
    public func stubDefault(_ stub: @escaping @Sendable (TransportRequest) -> StubResponse) {
        state.withLock { $0.fallback = stub }
    }

    /// Every request received, in order.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// The last request received.
    public var lastRequest: TransportRequest? { state.withLock { $0.requests.last } }

    /// The number of requests received.
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// The requests whose URL path is `path`.
    public func requests(to path: String) -> [TransportRequest] { requests.filter { $0.url?.path == path } }

    /// Forgets the recorded requests (stubs stay).
    public func resetRequests() { state.withLock { $0.requests = [] } }

    /// Forgets stubs and requests.
    public func reset() { state.withLock { $0 = State() } }

    /// Requests carry the cookies of the client's jar, if it has one (`TransportRequest.cookies`),
    /// and a stub's `Set-Cookie` fields go into the jar, as over the network (without redirects,
    /// which the mock does not follow).
    ///
    /// - Throws: the stub's `error`, when it has one.
    public func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        var request = request
        let cookieTarget = request.cookies == nil ? nil : request.url.flatMap { try? HTTPTarget($0.absoluteString) }
        if let cookieTarget, let cookies = request.cookies?.cookieHeader(for: cookieTarget) {
            request.headers.appendCookies(cookies)
        }
        let (stubs, fallback) = state.withLock { state in
            state.requests.append(request)
            return (state.stubs, state.fallback)
        }
        // Each stub is called at most once per request (stubs may count calls).
        var matched: StubResponse?
        for stub in stubs where matched == nil { matched = stub(request) }
        let stub = matched
            ?? fallback?(request)
            ?? .notFound(body: "no stub for \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")")
        if let error = stub.error { throw error }
        if let cookieTarget, case let values = stub.headers.values(name: "Set-Cookie"), !values.isEmpty {
            request.cookies?.storeCookies(values, from: cookieTarget)
        }
        return (stub.body, TransportResponse(statusCode: stub.statusCode, headers: stub.headers, url: request.url))
    }
}
