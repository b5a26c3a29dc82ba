import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The README's client sections (Quick Start, request builder, responses,
/// endpoints, configuration, errors), as written, over a mock transport.
@Suite struct ReadmeClientTests {
    @Test func basicRequests() async throws {
        let (fiber, mock) = mockFiber()
        mock.stub { $0.httpMethod == "GET" ? .ok(body: #"[{"id":1,"name":"Alice"}]"#) : nil }
        mock.stub { $0.httpMethod == "POST" ? .created(body: #"{"id":2,"name":"Alice"}"#) : nil }
        mock.stubDefault { _ in .noContent() }

        let response = try await fiber.get("/users")
        let users: [User] = try response.decode()
        #expect(users == [User(id: 1, name: "Alice")])

        let newUser = CreateUserBody(name: "Alice", email: "alice@example.com")
        let created: User = try await fiber.post("/users", body: newUser).decode()
        #expect(created.id == 2)
        let sent = try #require(mock.lastRequest)
        #expect(sent.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(try JSONDecoder().decode(CreateUserBody.self, from: sent.httpBody ?? Data()).email == "alice@example.com")

        let updatedUser = User(id: 1, name: "Bob")
        try await fiber.put("/users/1", body: updatedUser)
        try await fiber.patch("/users/1", body: ["name": "Bob"])
        try await fiber.delete("/users/1")
        #expect(mock.requests.map { $0.httpMethod ?? "" } == ["GET", "POST", "PUT", "PATCH", "DELETE"])
        #expect(mock.requests.map { $0.url?.path ?? "" } == ["/users", "/users", "/users/1", "/users/1", "/users/1"])
    }

    @Test func queryAndHeaders() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok(body: "[]"))
        let users: [User] = try await fiber.get("/users", query: ["page": "1", "q": "a b&c+d"], headers: ["X-Test": "1"]).decode()
        #expect(users.isEmpty)
        let sent = try #require(mock.lastRequest)
        #expect(sent.url?.query == "page=1&q=a%20b%26c%2Bd")
        #expect(sent.value(forHTTPHeaderField: "x-test") == "1")
    }

    @Test func chainableBuilder() async throws {
        struct SearchParams: Encodable { let filter: String }
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        let request = FiberRequest(url: "https://api.example.com/search")
            .method(.post)
            .header("Authorization", "Bearer tok")
            .header("Accept-Language", "en")
            .query("q", "swift")
            .query("page", "1")
            .jsonBody(SearchParams(filter: "active"))
            .timeout(30)
            .meta("cache", "skip")

        let response = try await fiber.send(request)
        #expect(response.statusCode == 200)
        let sent = try #require(mock.lastRequest)
        #expect(sent.httpMethod == "POST")
        #expect(sent.url?.absoluteString == "https://api.example.com/search?q=swift&page=1")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer tok")
        #expect(sent.value(forHTTPHeaderField: "Accept-Language") == "en")
        #expect(sent.httpBody == Data(#"{"filter":"active"}"#.utf8))
        #expect(sent.timeoutInterval.map { $0 > 0 && $0 <= 30 } == true)
        #expect(request.metadata["cache"] == "skip")
        #expect(sent.value(forHTTPHeaderField: "cache") == nil)
    }

    @Test func requestsAreNeverMutated() {
        let base = FiberRequest(url: "https://api.example.com/users")
        let withAuth = base.header("Authorization", "Bearer tok")
        #expect(base.headers.isEmpty)
        #expect(withAuth.headers["authorization"] == "Bearer tok")
        let replaced = withAuth.header("AUTHORIZATION", "Bearer other")
        #expect(replaced.headers.count == 1 && replaced.headers["Authorization"] == "Bearer other")
        #expect(withAuth.headers["Authorization"] == "Bearer tok")
        let queried = base.query("a", "1")
        #expect(base.url.query == nil && queried.url.query == "a=1")
        #expect(base.httpMethod == .get && base.method(.delete).httpMethod == .delete)
    }

    @Test func responseHandling() async throws {
        enum MyError: Error { case missingVersion }
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok(body: #"[{"id":1,"name":"A"}]"#).header("Content-Type", "application/json").header("X-Version", "3"))
        let response = try await fiber.get("/users")
        let users: [User] = try response.decode()
        #expect(users.count == 1)
        #expect(response.isSuccess && !response.isClientError && !response.isServerError)
        #expect(response.text == #"[{"id":1,"name":"A"}]"#)
        #expect(response.data.count == response.text.utf8.count)
        #expect(response.statusCode == 200)
        #expect(response.duration >= 0)
        #expect(!response.traceID.isEmpty)
        #expect(response.header("content-TYPE") == "application/json")

        let validated = try response
            .validateStatus()
            .validate { r in
                guard r.header("X-Version") != nil else { throw MyError.missingVersion }
            }
        #expect(validated.statusCode == 200)

        mock.stubAll(.ok())
        let bare = try await fiber.get("/users")
        #expect(throws: MyError.self) {
            try bare.validate { r in guard r.header("X-Version") != nil else { throw MyError.missingVersion } }
        }
    }

    @Test func statusClasses() async throws {
        let (fiber, mock) = mockFiber()
        for (stub, client, server) in [(StubResponse.notFound(), true, false), (.serverError(), false, true)] {
            mock.stubAll(stub)
            let response = try await fiber.get("/x")
            #expect(response.isClientError == client && response.isServerError == server && !response.isSuccess)
            await expectFiberError({ if case .httpError(stub.statusCode, _, _) = $0 { true } else { false } }) {
                try response.validateStatus()
            }
        }
    }

    /// A printed response shows what it holds (its parts sit behind one shared object).
    @Test func printedResponsesShowTheirParts() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(StubResponse(statusCode: 201, headers: ["X-Kind": "made"], body: Data("hi".utf8)))
        let response = try await fiber.get("/x")
        let printed = String(describing: response)
        for part in ["statusCode: 201", "X-Kind", "traceID: \"\(response.traceID)\"", "/x", "isStreamed: false"] {
            #expect(printed.contains(part), "\(printed)")
        }
        #expect(!printed.contains("ResponseExchange"))
    }

    @Test func typeSafeEndpoints() async throws {
        struct GetUser: Endpoint {
            typealias Response = User
            let id: String
            var path: String { "/users/\(id)" }
            var method: HTTPMethod { .get }
        }
        struct CreateUser: Endpoint {
            typealias Response = User
            let body: Data?
            var path: String { "/users" }
            var method: HTTPMethod { .post }
            init(name: String, email: String) {
                self.body = try? JSONEncoder().encode(["name": name, "email": email])
            }
        }
        struct SearchUsers: Endpoint {
            typealias Response = [User]
            let query: String
            var path: String { "/users" }
            var method: HTTPMethod { .get }
            var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: query)] }
        }
        let (fiber, mock) = mockFiber()
        mock.stub { $0.url?.path == "/users/123" ? .ok(body: #"{"id":123,"name":"Al"}"#) : nil }
        mock.stub { $0.httpMethod == "POST" ? .created(body: #"{"id":9,"name":"Bo"}"#) : nil }
        mock.stub { $0.url?.query == "q=alice" ? .ok(body: #"[{"id":1,"name":"alice"}]"#) : nil }

        let user = try await fiber.request(GetUser(id: "123"))
        #expect(user == User(id: 123, name: "Al"))
        let results = try await fiber.request(SearchUsers(query: "alice"))
        #expect(results.map(\.name) == ["alice"])
        let created = try await fiber.request(CreateUser(name: "Bo", email: "bo@example.com"))
        #expect(created.id == 9)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "Content-Type") == "application/json")

        // A rejected status is an httpError, not a decoding error of the error body.
        await expectFiberError({ if case .httpError(404, _, _) = $0 { true } else { false } }) {
            _ = try await fiber.request(GetUser(id: "missing"))
        }
    }

    @Test func configurationBuilder() async throws {
        let mock = MockTransport()
        mock.stubAll(StubResponse.status(302).body(#"{"created_at":0}"#))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let collector = TestTraceCollector()
        let fiber = Fiber("https://api.example.com") {
            $0.interceptors = [AnyInterceptor("noop") { try await $1($0) }]
            $0.transport = mock
            $0.defaultHeaders = ["Accept": "application/json", "X-Client-Version": "1.0.0"]
            $0.timeout = 30
            $0.decoder = decoder
            $0.encoder = JSONEncoder()
            $0.logger = collector.logger()
            $0.validateStatus = { (200..<400).contains($0) }  // treat 3xx as success
        }
        struct Stamp: Decodable { let createdAt: Int }
        let response = try await fiber.get("/config", headers: ["Accept": "text/plain"])
        #expect(try response.validateStatus().decode(Stamp.self).createdAt == 0)
        let sent = try #require(mock.lastRequest)
        #expect(sent.value(forHTTPHeaderField: "Accept") == "text/plain")  // the request's own wins
        #expect(sent.value(forHTTPHeaderField: "X-Client-Version") == "1.0.0")
        #expect(sent.timeoutInterval.map { $0 > 0 && $0 <= 30 } == true)  // what is left of 30 s
        #expect(collector.messages.contains { $0.contains("302") })

        mock.stubAll(.notFound())
        await expectFiberError({ if case .httpError(404, _, let r) = $0 { r.statusCode == 404 } else { false } }) {
            try await fiber.get("/missing")
        }
        // Logged at debug, not error: the caller has the error.
        #expect(collector.logs.contains { $0.level == .debug && $0.message.contains("404") })
        #expect(!collector.logs.contains { $0.level == .error })
    }

    @Test func errorHandlingSwitch() async throws {
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok(body: "not json"))
        var described = ""
        do {
            let user: User = try await fiber.get("/users/1").decode()
            Issue.record("decoded \(user)")
        } catch let error as FiberError {
            switch error {
            case .httpError(let statusCode, let data, _):
                described = "HTTP \(statusCode): \(String(data: data, encoding: .utf8) ?? "")"
            case .decodingError(let underlying, let data):
                described = "Failed to decode: \(underlying) Raw response: \(String(data: data, encoding: .utf8) ?? "")"
            case .networkError(let underlying):
                described = "Network failure: \(underlying.localizedDescription)"
            case .timeout:
                described = "Request timed out"
            case .cancelled:
                described = "Request was cancelled"
            case .interceptor(let name, let underlying):
                described = "Interceptor '\(name)' failed: \(underlying)"
            case .invalidURL(let string):
                described = "Bad URL: \(string)"
            case .encodingError(let underlying):
                described = "Encoding failed: \(underlying)"
            }
        }
        #expect(described.hasPrefix("Failed to decode") && described.hasSuffix("Raw response: not json"))
    }

    @Test func customTransport() async throws {
        struct MyCustomTransport: FiberTransport {
            func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
                (Data("custom \(request.url?.path ?? "")".utf8), TransportResponse(statusCode: 200, url: request.url))
            }
        }
        let fiber = Fiber("https://api.example.com") {
            $0.transport = MyCustomTransport()
        }
        #expect(try await fiber.get("/ping").text == "custom /ping")
        // The default streaming of a custom transport: one chunk.
        let streamed = try await fiber.stream(FiberRequest(url: "https://api.example.com/big"))
        #expect(try await streamed.collect().text == "custom /big")
    }
}
