import Fiber
import FiberTesting
import Foundation
import Testing

/// `NetworkRequest<Request, Response>` and `Endpoint`'s typed parts, over real sockets.
@Suite("Typed requests", .timeLimit(.minutes(1)))
struct TypedRequestTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let fullName: String
    }

    struct CreateUser: Encodable, Sendable {
        let fullName: String
        let joinedAt: Date
    }

    @Test func aTypedGetPostAndFormCarryTheirParts() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/users/1") { request in
                request.target.hasSuffix("?expand=teams&v=2") ? .json(#"{"id":1,"full_name":"Ada"}"#) : .status(400)
            }
            server.route("POST", "/users") { _ in .json(#"{"id":2,"full_name":"Lin"}"#, status: 201) }
            server.route("POST", "/auth/login") { _ in .json(#"{"id":3,"full_name":"Kay"}"#) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let snake = JSONDecoder()
            snake.keyDecodingStrategy = .convertFromSnakeCase

            let get = NetworkRequest<VoidRequest, User>(path: "/users/1", queryItems: [URLQueryItem(name: "expand", value: "teams"),
                                                                                      URLQueryItem(name: "v", value: "2")],
                                                        decoder: snake)
            let got = try await fiber.run(get)
            #expect(got.value == User(id: 1, fullName: "Ada") && got.statusCode == 200)
            #expect(server.lastRequest?.body.isEmpty == true)

            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .secondsSince1970
            let post = NetworkRequest<CreateUser, User>(path: "/users", method: .post,
                                                        body: CreateUser(fullName: "Lin", joinedAt: Date(timeIntervalSince1970: 7)),
                                                        additionalHeaders: ["X-Request-Id": "r1"], encoder: encoder, decoder: snake)
            let created = try await fiber.run(post)
            #expect(created.value?.fullName == "Lin" && created.statusCode == 201)
            let sent = try #require(server.lastRequest)
            let fields = try JSONSerialization.jsonObject(with: Data(sent.body)) as? [String: Any]
            #expect(fields?["full_name"] as? String == "Lin" && fields?["joined_at"] as? Double == 7)
            #expect(sent.header("X-Request-Id") == "r1" && sent.header("Content-Type")?.hasPrefix("application/json") == true)

            let login = NetworkRequest<VoidRequest, User>(path: "/auth/login", method: .post,
                                                          formItems: [URLFormItem(name: "username", value: "user"),
                                                                      URLFormItem(name: "password", value: "p w&1")],
                                                          decoder: snake)
            #expect(try await fiber.run(login).value?.id == 3)
            #expect(server.lastRequest.map { String(decoding: $0.body, as: UTF8.self) } == "username=user&password=p+w%261")
            #expect(server.lastRequest?.header("Content-Type") == "application/x-www-form-urlencoded")
        }
    }

    @Test func failuresAreTypedAndOverridesApply() async throws {
        try await withLiveServer { server, transport in
            let hits = Counter()
            server.route("GET", "/flaky") { _ in hits.increment(); return TestResponse.status(503).withHeader("Retry-After", "0") }
            server.route("GET", "/missing") { _ in .status(404) }
            server.route("GET", "/empty") { _ in .status(200) }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 3, baseDelay: 0.01)]
            }
            do throws(FiberError) {
                _ = try await fiber.run(NetworkRequest<VoidRequest, [String]>(path: "/flaky", retryStrategy: RetryStrategy.none))
                Issue.record("a 503 did not throw")
            } catch {
                #expect(error == .httpError(statusCode: 503, data: Data(), response: .empty))
            }
            #expect(hits.count == 1)
            do throws(FiberError) {
                _ = try await fiber.run(NetworkRequest<VoidRequest, [String]>(path: "/missing"))
                Issue.record("a 404 did not throw")
            } catch {
                #expect(error.kind == .httpError && error != .httpError(statusCode: 503, data: Data(), response: .empty))
            }
            do throws(FiberError) {
                _ = try await fiber.run(NetworkRequest<VoidRequest, [String]>(path: "/empty"))
                Issue.record("an empty body did not throw")
            } catch {
                #expect(error.isEmptyResponseBody)
            }
            let empty = try await fiber.run(NetworkRequest<VoidRequest, Empty>(path: "/empty"))
            #expect(empty.isSuccess)
        }
    }
}
