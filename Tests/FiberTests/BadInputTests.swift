import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

@Suite struct BadInputTests {
    @Test func malformedJSONIsADecodingErrorWithTheData() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok(body: #"{"id": 1, "name": "#))
        let response = try await fiber.get("/users/1")
        await expectFiberError({ error in
            guard case .decodingError(let underlying, let data) = error else { return false }
            return underlying is DecodingError && String(decoding: data, as: UTF8.self) == #"{"id": 1, "name": "#
        }) { _ = try response.decode(User.self) }
        // Wrong shape too.
        mock.stubAll(.ok(body: #"{"id": "one", "name": "A"}"#))
        await expectFiberError({ if case .decodingError = $0 { true } else { false } }) {
            let _: User = try await fiber.get("/users/1").decode()
        }
    }

    @Test(arguments: ["not a url", "", "/relative/only", "https://", "mailto:someone"])
    func invalidURLs(_ url: String) async throws {
        let (fiber, mock) = mockFiber()
        await expectFiberError({ if case .invalidURL(url) = $0 { true } else { false } }) {
            try await fiber.send(FiberRequest(url: url))
        }
        #expect(mock.requests.isEmpty)
    }

    @Test func invalidBaseURL() async throws {
        let mock = MockTransport()
        let fiber = Fiber("not a base") { $0.transport = mock }
        await expectFiberError({ if case .invalidURL("not a base/users") = $0 { true } else { false } }) {
            try await fiber.get("/users")
        }
    }

    @Test func unencodableBodyIsAnEncodingError() async throws {
        let (fiber, mock) = mockFiber()
        await expectFiberError({ if case .encodingError(let e) = $0 { e is EncodingError } else { false } }) {
            try await fiber.post("/numbers", body: ["x": Double.nan])
        }
        #expect(mock.requests.isEmpty)
    }

    @Test func headerInjectionIsRefusedByTheRealTransport() async throws {
        try await withLiveServer { server, transport in
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ error in
                guard case .networkError(let underlying) = error else { return false }
                return (underlying as? HTTPClientError)?.kind == .invalidHeader
            }) {
                try await fiber.get("/", headers: ["X-Evil": "a\r\nInjected: yes"])
            }
            #expect(server.requestCount == 0)
        }
    }

    @Test func schemeTheTransportCannotReach() async throws {
        try await withLiveServer { server, transport in
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ if case .invalidURL = $0 { true } else { false } }) {
                try await fiber.send(FiberRequest(url: "ftp://127.0.0.1/file"))
            }
        }
    }

    @Test func expiredDeadlineNeverReachesTheTransport() async throws {
        let (fiber, mock) = mockFiber([AnyInterceptor("slow") { request, next in
            try await waitUntil { request.remainingTime == .zero }
            return try await next(request)
        }])
        await expectFiberError({ if case .timeout = $0 { true } else { false } }) {
            try await fiber.send(FiberRequest(url: "https://api.example.com/").timeout(0.001))
        }
        #expect(mock.requests.isEmpty)
    }
}
