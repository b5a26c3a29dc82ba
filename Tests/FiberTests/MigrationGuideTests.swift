import Fiber
import FiberTesting
import Foundation
import Synchronization
import Testing

// The examples of Docs/ComingFromNetworking.md, as written there, each run against
// the loopback test server. A change that breaks one breaks the guide.

/// The guide's models.
struct GuideUser: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

struct GuideProduct: Codable, Sendable {
    let id: Int
    let title: String
}

@Suite("The migration guide's examples", .timeLimit(.minutes(1)))
struct MigrationGuideTests {
    static func api(_ server: TestHTTPServer) {
        server.route("GET", "/users") { _ in .json(#"[{"id":1,"name":"Ada"}]"#) }
        server.route("GET", "/profile") { _ in .json(#"{"id":1,"name":"Ada"}"#) }
        server.route("GET", "/products/42") { _ in .json(#"{"id":42,"title":"Lamp"}"#) }
        server.route("DELETE", "/tasks/42") { _ in .status(204) }
        server.route("GET", "/log") { _ in .text("line one\nline two\n") }
        server.route("GET", "/search") { request in
            request.target.contains("q=swift") ? .json(#"[{"id":7,"name":"Swift"}]"#) : .status(400)
        }
        server.route("POST", "/login") { _ in .json(#"{"id":2,"name":"john"}"#) }
        server.route("GET", "/missing") { _ in .status(404) }
    }

    /// Waits until `done` says so.
    static func settle(_ done: @escaping @Sendable () -> Bool) async throws {
        try await waitUntil("the completion ran", timeout: .seconds(10), done)
    }

    @Test func quickStartInThreeStyles() async throws {
        try await withLiveServer { server, transport in
            Self.api(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let loaded = Mutex<[GuideUser]?>(nil)

            // 1. Completion handler
            fiber.get("/users") { (response: NetworkResponse<[GuideUser]>) in
                switch response.result {
                case .success(let users): loaded.withLock { $0 = users }
                case .failure(let error): print("Networking error:", error)
                }
            }
            try await Self.settle { loaded.withLock { $0 } != nil }

            // 2. async/await, not throwing
            let response = await fiber.chain(.get, "/profile").responseDecodable(of: GuideUser.self)
            if let user = response.value {
                print("Logged in as:", user.name)
            } else {
                print(response.error ?? FiberError.cancelled)
            }
            // … or throwing
            let user: GuideUser = try await fiber.get("/profile").validateStatus().decode()

            // 3. The chain
            let finished = Mutex(false)
            fiber.chain(.get, "/products/42")
                .cURLLog()
                .responseDecodable(of: GuideProduct.self) { response in
                    switch response.result {
                    case .success(let product): print("Product:", product.title)
                    case .failure(let error): print(error)
                    }
                }
                .responseVoid { response in finished.withLock { $0 = response.isSuccess } }
            try await Self.settle { finished.withLock { $0 } }

            #expect(loaded.withLock { $0 } == [GuideUser(id: 1, name: "Ada")])
            #expect(response.value == user)
        }
    }

    @Test func requestsHeadersAndCaching() async throws {
        try await withLiveServer { server, transport in
            Self.api(server)
            let token = "t0k"
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [CacheInterceptor()]
            }

            // RequestConfig: a FiberRequest with its query, headers, cache policy and retries.
            let request = fiber.request(.get, "/search", query: ["q": "swift"])
                .headers(HTTPHeaders([.accept("application/json"), .authorization(bearerToken: token)]))
                .cachePolicy(CachePolicy(useCache: true, storeCache: true))
                .retry(.retry(count: 2))
            let delivered = Mutex<NetworkResponse<[GuideUser]>?>(nil)
            fiber.send(request) { (response: NetworkResponse<[GuideUser]>) in delivered.withLock { $0 = response } }
            try await Self.settle { delivered.withLock { $0 } != nil }

            // A URL-only POST with body parameters and one retry.
            let login = fiber.request(.post, "/login").jsonBody(["username": "john", "password": "12345"]).retry(.retry(count: 1))
            let token2 = await fiber.chain(login).responseDecodable(of: GuideUser.self)

            // Headers
            var headers = HTTPHeaders([.contentType("application/json"), .accept("application/json")])
            headers.add(.authorization(bearerToken: token))   // set or replace
            headers.remove(name: "User-Agent")
            let dictionary: [String: String] = headers.dictionary
            let language = HTTPHeader.acceptLanguage(preferred: ["en-US", "fr"])
            var withDefaults = HTTPHeaders.default
            withDefaults.add(name: "Authorization", value: "Bearer <token>")

            // Opt-in cache for an hour
            let policy = CachePolicy(useCache: true, storeCache: true, expireTime: Date().addingTimeInterval(3600))
            let cached: NetworkResponse<Data> = await fiber.chain(fiber.request(.get, "/users").cachePolicy(policy)).responseData()

            #expect(delivered.withLock { $0 }?.value?.first?.name == "Swift")
            #expect(server.recordedRequests().contains { $0.header("Authorization") == "Bearer t0k" })
            #expect(token2.value?.name == "john")
            #expect(server.recordedRequests().contains { $0.path == "/login" && String(decoding: $0.body, as: UTF8.self).contains("john") })
            #expect(dictionary["Authorization"] == "Bearer t0k" && language.value == "en-US;q=1.0, fr;q=0.9")
            #expect(withDefaults["Authorization"] == "Bearer <token>" && cached.isSuccess)
        }
    }

    @Test func methodsStatusesAndErrors() async throws {
        try await withLiveServer { server, transport in
            Self.api(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let method = HTTPMethod.post.rawValue          // "POST"
            let retriable = HTTPMethod.put.isIdempotent    // true

            let response = await fiber.chain(.get, "/missing").responseData()
            var message = ""
            switch (response.statusCode ?? 0).statusCodeType {
            case .successful: message = "ok"
            case .clientError: message = "Check your input"
            case .serverError: message = "retry with back-off"
            default: message = "unrecognised"
            }

            // Networking's NetworkError cases, as Fiber tells them apart.
            func present(_ error: FiberError) -> String {
                if error.isOffline { return "You appear to be offline." }
                if error.isEmptyResponseBody { return "Nothing came back." }
                if error.isTransferFailure { return "The transfer failed." }
                switch error {
                case .timeout: return "Server is taking too long. Try again later."
                case .httpError(let code, _, _): return "Oops, server returned \(code)."
                case .decodingError: return "Unexpected data."
                case .invalidURL: return "The URL is invalid."
                default: return "Something went wrong. Please retry."
                }
            }
            let error = try #require(response.error)
            #expect(method == "POST" && retriable && message == "Check your input")
            #expect(present(error) == "Oops, server returned 404.")
            #expect(error == .httpError(statusCode: 404, data: Data(), response: .empty))   // payloads not compared
        }
    }

    @Test func serializersAndTheirOwnFormat() async throws {
        try await withLiveServer { server, transport in
            Self.api(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let iso = JSONDecoder()
            iso.dateDecodingStrategy = .iso8601

            let items = await fiber.chain(.get, "/search", query: ["q": "swift"]).responseDecodable(of: [GuideUser].self, decoder: iso)
            let deleted = await fiber.chain(.delete, "/tasks/42").responseVoid()
            let raw = await fiber.chain(.get, "/log").responseData()
            let text = await fiber.chain(.get, "/log").responseString()

            // A format of your own: lines of text.
            struct LinesSerializer: ResponseSerializer {
                func serialize(_ response: FiberResponse) throws(FiberError) -> [String] {
                    response.text.split(separator: "\n").map(String.init)
                }
            }
            let lines = await fiber.chain(.get, "/log").response(using: LinesSerializer())
            // Transforming a response: the metadata stays.
            let count = lines.map(\.count)

            #expect(items.value?.first?.id == 7 && deleted.isSuccess && raw.data?.count == 18)
            #expect(text.value == "line one\nline two\n" && lines.value == ["line one", "line two"] && count.value == 2)
        }
    }

    @Test func microClientRequestsAndOverrides() async throws {
        try await withLiveServer { server, transport in
            Self.api(server)
            // NetworkClient(configuration:) with a retry strategy, a logger and interceptors.
            let client = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [
                    RetryInterceptor(maxRetries: 3),
                    LoggingInterceptor(logger: PrintFiberLogger(minimumLevel: .info)),
                ]
            }
            let getUser = NetworkRequest<VoidRequest, GuideUser>(path: "/profile", method: .get)
            let userResponse = try await client.run(getUser)
            let user = userResponse.value

            // Per-request overrides: no retry, interceptors of its own, a decoder.
            let custom = JSONDecoder()
            custom.dateDecodingStrategy = .iso8601
            let once = NetworkRequest<VoidRequest, [GuideUser]>(path: "/search", queryItems: [URLQueryItem(name: "q", value: "swift")],
                                                                retryStrategy: RetryStrategy.none, interceptors: [],
                                                                decoder: custom)
            let found = try await client.run(once)

            // Form data
            let login = NetworkRequest<VoidRequest, GuideUser>(path: "/login", method: .post,
                                                              formItems: [URLFormItem(name: "username", value: "user"),
                                                                          URLFormItem(name: "password", value: "pass")])
            let loggedIn = try await client.run(login)

            // Errors
            do throws(FiberError) {
                _ = try await client.run(NetworkRequest<VoidRequest, GuideUser>(path: "/missing"))
            } catch {
                switch error {
                case .invalidURL: print("The URL for the request was invalid.")
                case .networkError(let underlying): print("A network transport error occurred:", underlying)
                case .httpError(let statusCode, let data, _):
                    print("Server returned an unacceptable status code: \(statusCode) (\(data.count) bytes)")
                case .decodingError(let underlying, _): print("Failed to decode the response:", underlying)
                case .encodingError(let underlying): print("Failed to encode the request body:", underlying)
                default: print("An unknown error occurred:", error)
                }
            }

            #expect(user?.name == "Ada" && found.value?.first?.name == "Swift" && loggedIn.value?.name == "john")
        }
    }

    @Test func loggingWithPrivacy() {
        let logger = NetworkLogger(logger: PrintFiberLogger())
        logger.logMessage(message: "Bootstrapping network layer", level: .info, logPrivacy: .public)
        let userID = 42, attempt = 2
        logger.log("retry #\(attempt, privacy: .public) for user \(userID, privacy: .private)", level: .info)
        logger.cURLLog(request: FiberRequest(url: "http://127.0.0.1:9/profile"))
        let message: FiberLogMessage = "user \(userID, privacy: .private)"
        #expect(message.description == "user <private>")
    }
}
