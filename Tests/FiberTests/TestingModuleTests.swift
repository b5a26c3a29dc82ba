import Fiber
import FiberTesting
import Foundation
import Testing

/// The README's "Testing" section: MockTransport, conditional stubs, StubResponse.
@Suite struct TestingModuleTests {
    @Test func mockTransport() async throws {
        let mock = MockTransport()
        mock.stubAll(.ok(body: #"{"id": 1, "name": "Alice"}"#))

        let fiber = Fiber(baseURL: URL(string: "https://api.example.com")!, transport: mock)
        let response = try await fiber.get("/users/1")

        #expect(response.statusCode == 200)
        #expect(mock.requests.count == 1)
        #expect(mock.lastRequest?.url?.path == "/users/1")
        #expect(try response.decode(User.self) == User(id: 1, name: "Alice"))
    }

    @Test func conditionalStubs() async throws {
        let mock = MockTransport()
        mock.stub { req in
            if req.url?.path == "/users" {
                return .ok(body: #"[{"id": 1}]"#)
            }
            return nil  // fall through to next stub
        }

        mock.stub { req in
            if req.httpMethod == "DELETE" {
                return .noContent()
            }
            return nil
        }

        // Default fallback for unmatched requests
        mock.stubDefault { _ in .notFound() }

        let fiber = Fiber(baseURL: apiURL, transport: mock)
        #expect(try await fiber.get("/users").text == #"[{"id": 1}]"#)
        #expect(try await fiber.delete("/users/1").statusCode == 204)
        #expect(try await fiber.get("/other").statusCode == 404)
        #expect(mock.requests(to: "/users").count == 1)
    }

    @Test func unstubbedRequestsGet404NamingThem() async throws {
        let (fiber, mock) = mockFiber()
        let response = try await fiber.get("/nothing")
        #expect(response.statusCode == 404 && response.text == "no stub for GET https://api.example.com/nothing")
        mock.reset()
        #expect(mock.requests.isEmpty && mock.requestCount == 0)
    }

    @Test func stubResponseBuilder() async throws {
        let stub = StubResponse.ok()
            .header("X-Request-Id", "abc123")
            .header("Content-Type", "application/json")
            .body(#"{"users": []}"#)
        #expect(stub.statusCode == 200 && stub.headers["x-request-id"] == "abc123")
        #expect(String(decoding: stub.body, as: UTF8.self) == #"{"users": []}"#)

        // From Encodable
        let json = StubResponse.ok().jsonBody(User(id: 1, name: "Alice"))
        #expect(try JSONDecoder().decode(User.self, from: json.body) == User(id: 1, name: "Alice"))
        #expect(json.headers["Content-Type"] == "application/json")

        // Factory methods
        let codes = [StubResponse.ok(), .created(), .noContent(), .badRequest(), .unauthorized(), .notFound(), .serverError()]
            .map(\.statusCode)
        #expect(codes == [200, 201, 204, 400, 401, 404, 500])

        let (fiber, mock) = mockFiber()
        mock.stubAll(stub)
        let response = try await fiber.get("/")
        #expect(response.header("X-REQUEST-ID") == "abc123" && response.text == #"{"users": []}"#)
    }

    @Test func stubbedFailuresReachTheCallerMapped() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.failure(CancellationError()))
        await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { try await fiber.get("/") }
        mock.stubAll(.failure(URLError(.notConnectedToInternet)))
        await expectFiberError({ if case .networkError(let e) = $0 { (e as? URLError)?.code == .notConnectedToInternet } else { false } }) {
            try await fiber.get("/")
        }
    }
}
