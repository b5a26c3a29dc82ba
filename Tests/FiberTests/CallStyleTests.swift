import Dispatch
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Completion handlers, the serializer chain and `NetworkResponse`, through `Fiber`
/// over real loopback sockets.
@Suite("Call styles: completions and the serializer chain", .timeLimit(.minutes(1)))
struct CallStyleTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    /// Waits for one completion and hands back what it got.
    final class Delivery<Value: Sendable>: Sendable {
        private let box = Locked<(Value, Bool)?>(nil)
        private let queueKey = DispatchSpecificKey<String>()
        func record(_ value: Value) { box.withLock { $0 = (value, DispatchQueue.getSpecific(key: self.queueKey) == "chosen") } }
        func queue() -> DispatchQueue {
            let queue = DispatchQueue(label: "chosen")
            queue.setSpecific(key: queueKey, value: "chosen")
            return queue
        }
        /// The value and whether it came on the chosen queue.
        func value() async throws -> (Value, Bool) {
            try await waitUntil("the completion ran", timeout: .seconds(10)) { box.withLock { $0 != nil } }
            return box.withLock { $0! }
        }
    }

    static func usersServer(_ server: TestHTTPServer) {
        server.route("GET", "/users") { _ in .json(#"[{"id":1,"name":"Ada"},{"id":2,"name":"Lin"}]"#) }
        server.route("GET", "/missing") { _ in .text("no such thing", status: 404) }
    }

    @Test func aCompletionGetsTheDecodedValueOnTheChosenQueue() async throws {
        try await withLiveServer { server, transport in
            Self.usersServer(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let delivery = Delivery<NetworkResponse<[User]>>()
            fiber.get("/users", queue: delivery.queue()) { (response: NetworkResponse<[User]>) in delivery.record(response) }
            let (response, onChosenQueue) = try await delivery.value()
            #expect(onChosenQueue)
            #expect(response.value == [User(id: 1, name: "Ada"), User(id: 2, name: "Lin")])
            #expect(response.isSuccess && response.statusCode == 200 && response.error == nil)
            #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(response.data?.count == 45 && (response.duration ?? -1) >= 0)
        }
    }

    /// Without a queue, the completion runs on the event loop that ran the request.
    @Test func withoutAQueueTheCompletionRunsOnTheRequestsLoop() async throws {
        try await withLiveServer { server, transport in
            Self.usersServer(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let delivery = Delivery<Bool>()
            fiber.get("/users") { (_: NetworkResponse<Data>) in delivery.record(EventLoop.current != nil) }
            let (onLoop, _) = try await delivery.value()
            #expect(onLoop)
        }
    }

    @Test func aRejectedStatusKeepsItsResponseAFailedConnectionHasNone() async throws {
        try await withLiveServer { server, transport in
            Self.usersServer(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let delivery = Delivery<NetworkResponse<Data>>()
            fiber.get("/missing") { (response: NetworkResponse<Data>) in delivery.record(response) }
            let (missing, _) = try await delivery.value()
            guard case .httpError(404, let body, _)? = missing.error else { Issue.record("\(missing)"); return }
            #expect(String(decoding: body, as: UTF8.self) == "no such thing")
            #expect(missing.statusCode == 404 && missing.data == body)
        }
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        let closedPort = listener.port
        await listener.close()
        let refused = await Fiber("http://127.0.0.1:\(closedPort)").chain(.get, "/").responseData()
        guard case .networkError? = refused.error else { Issue.record("\(refused)"); return }
        #expect(refused.response == nil && refused.statusCode == nil && refused.headers.isEmpty)
    }

    @Test func theHandleCancelsTheRequest() async throws {
        try await withLiveServer { server, transport in
            let arrived = Locked(false)
            server.route("GET", "/slow") { _ in
                arrived.withLock { $0 = true }
                try? await Task.sleep(for: .seconds(30))
                return .ok("late")
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let delivery = Delivery<NetworkResponse<Data>>()
            let handle = fiber.get("/slow") { (response: NetworkResponse<Data>) in delivery.record(response) }
            try await waitUntil("the request reached the server") { arrived.withLock { $0 } }
            handle.cancel()
            let (response, _) = try await delivery.value()
            guard case .cancelled? = response.error else { Issue.record("\(response)"); return }
        }
    }

    /// Four serializers, awaited and with completions: one request on the network.
    @Test func severalSerializersShareOneCall() async throws {
        try await withLiveServer { server, transport in
            let hits = Counter()
            server.route("GET", "/users") { _ in
                hits.increment()
                return .json(#"[{"id":1,"name":"Ada"}]"#)
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let text = Delivery<NetworkResponse<String>>()
            let done = Delivery<NetworkResponse<Void>>()
            let chain = fiber.chain(.get, "/users")
                .responseString { text.record($0) }
                .responseVoid { done.record($0) }
            let users = await chain.responseDecodable(of: [User].self)
            let data = await chain.responseData()
            #expect(users.value == [User(id: 1, name: "Ada")])
            #expect(data.value == Data(#"[{"id":1,"name":"Ada"}]"#.utf8))
            let (textResponse, _) = try await text.value()
            let (doneResponse, _) = try await done.value()
            #expect(textResponse.value == #"[{"id":1,"name":"Ada"}]"#)
            #expect(doneResponse.isSuccess)
            #expect(hits.count == 1)
        }
    }

    @Test func validationsDecideWhatPasses() async throws {
        try await withLiveServer { server, transport in
            Self.usersServer(server)
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            // By default a 404 fails; accepted explicitly, it passes.
            #expect(await fiber.chain(.get, "/missing").responseVoid().isSuccess == false)
            let accepted = await fiber.chain(.get, "/missing").validate(statusCode: [200, 404]).responseString()
            #expect(accepted.value == "no such thing")
            // A content type not accepted fails as a decoding error that names it.
            let wrongType = await fiber.chain(.get, "/missing").validate(statusCode: 400..<500)
                .validate(contentType: ["application/json"]).responseData()
            guard case .decodingError(let cause as UnacceptableContentType, _)? = wrongType.error else {
                Issue.record("\(wrongType)"); return
            }
            #expect(cause.received == "text/plain")
            #expect(await fiber.chain(.get, "/users").validate(contentType: ["application/*"]).responseData().isSuccess)
            // A check of one's own: its error is carried as the validation's.
            struct NoUsers: Error {}
            let custom = await fiber.chain(.get, "/users").validate { _ in throw NoUsers() }.responseVoid()
            guard case .interceptor("validate", _ as NoUsers)? = custom.error else { Issue.record("\(custom)"); return }
        }
    }

    /// A serializer for a format that is not JSON: comma-separated rows.
    struct CSVSerializer: ResponseSerializer {
        struct Malformed: Error {}
        func serialize(_ response: FiberResponse) throws(FiberError) -> [[String]] {
            let rows = response.text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            guard rows.allSatisfy({ $0.count == rows.first?.count }) else {
                throw .decodingError(underlying: Malformed(), data: response.data)
            }
            return rows
        }
    }

    @Test func aSerializerOfOnesOwnReadsCSV() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/report.csv") { _ in .text("id,name\n1,Ada\n2,Lin\n") }
            server.route("GET", "/broken.csv") { _ in .text("id,name\n1\n") }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let rows = try await fiber.chain(.get, "/report.csv").response(using: CSVSerializer()).get()
            #expect(rows == [["id", "name"], ["1", "Ada"], ["2", "Lin"]])
            let broken = await fiber.chain(.get, "/broken.csv").response(using: CSVSerializer())
            guard case .decodingError(_ as CSVSerializer.Malformed, _)? = broken.error else { Issue.record("\(broken)"); return }
        }
    }

    @Test func emptyBodiesTextEncodingsAndTheReadableSummary() async throws {
        try await withLiveServer { server, transport in
            server.route("DELETE", "/tasks/1") { _ in .status(204) }
            server.route("GET", "/latin") { _ in
                .bytes([0x63, 0x61, 0x66, 0xE9], headers: ["Content-Type": "text/plain; charset=ISO-8859-1", "Set-Cookie": "s=secret"])
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let empty = await fiber.chain(.delete, "/tasks/1").responseDecodable(of: User.self)
            #expect(empty.error?.isEmptyResponseBody == true)
            #expect(await fiber.chain(.delete, "/tasks/1").responseDecodable(of: Empty.self).value == Empty())
            // Bytes that are not UTF-8, read as UTF-8: a typed failure that keeps the body.
            let notText = await fiber.chain(.get, "/latin").responseString(encoding: .utf8)
            guard case .decodingError(_, let kept)? = notText.error else { Issue.record("\(notText)"); return }
            #expect(kept == Data([0x63, 0x61, 0x66, 0xE9]) && notText.statusCode == 200)
            let latin = await fiber.chain(.get, "/latin").responseString()
            #expect(latin.value == "café")
            let summary = latin.description
            #expect(summary.contains("Request: GET \(server.baseURL)/latin") && summary.contains("Response: 200"))
            #expect(summary.contains("Data: 4 bytes") && summary.contains("Result: success(café)"))
            #expect(latin.debugDescription.contains("Set-Cookie: <redacted>") && !latin.debugDescription.contains("secret"))
            let mapped = latin.map(\.count)
            #expect(mapped.value == 4 && mapped.statusCode == 200)
        }
    }

    struct UserEndpoint: Endpoint {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    @Test func anEndpointAnswersWithItsTypedResponseAndMetadata() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/users/7") { _ in .json(#"{"id":7,"name":"Kay"}"#).withHeader("X-Rate", "9") }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let response = await fiber.response(for: UserEndpoint(id: 7))
            #expect(response.value == User(id: 7, name: "Kay") && response.headers["X-Rate"] == "9")
            let delivery = Delivery<NetworkResponse<User>>()
            fiber.request(UserEndpoint(id: 7)) { delivery.record($0) }
            let (delivered, _) = try await delivery.value()
            #expect(delivered.value?.name == "Kay")
        }
    }
}
