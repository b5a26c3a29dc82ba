import Dependencies
import DependenciesTestSupport
import FiberDependencies
import FiberDependenciesTesting
import FiberRuntime
import FiberTesting
import Foundation
import Testing

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

/// Code under test, written as an application would: it takes its client from the dependencies.
struct UserDirectory {
    @Dependency(\.fiberHTTPClient) var httpClient

    func users() async throws -> [User] {
        let response = try await httpClient.get("/users", [:], [:])
        let users: [User] = try response.decode()
        return users
    }
}

/// The module's examples as a user writes them, each run.
@Suite struct DependencyExamplesTests {
    /// `@Dependency(\.fiberHTTPClient)` in a feature, overridden per endpoint.
    @Test func structOfClosuresClientOverriddenInATest() async throws {
        let users = try await withDependencies {
            $0.fiberHTTPClient.get = { path, query, headers in
                #expect(path == "/users" && query.isEmpty && headers.isEmpty)
                return FiberResponse(data: Data(#"[{"id":1,"name":"Ada"}]"#.utf8), statusCode: 200,
                                     request: FiberRequest(url: "https://api.example.com/users"))
            }
        } operation: {
            try await UserDirectory().users()
        }
        #expect(users == [User(id: 1, name: "Ada")])
    }

    /// The override returns `FiberResponse.empty`, as the example shows.
    @Test func overrideReturningEmpty() async throws {
        let response = try await withDependencies {
            $0.fiberHTTPClient.get = { _, _, _ in FiberResponse.empty }
        } operation: {
            @Dependency(\.fiberHTTPClient) var httpClient
            return try await httpClient.get("/anything", [:], [:])
        }
        #expect(response.statusCode == 200 && response.data.isEmpty)
    }

    /// `FiberHTTPClient.live(fiber)` and `.live(baseURL) { … }` against a real loopback server,
    /// every endpoint, with the configured interceptors applied.
    @Test func liveClientsOverRealSockets() async throws {
        try await withLoopbackServer { server, transport in
            server.route("GET", "/users") { request in
                .json(#"[{"id":1,"name":"\#(request.query("name") ?? "")"}]"#)
            }
            for method in ["POST", "PUT", "PATCH"] {
                server.route(method, "/users/1") { request in
                    .json(#"{"method":"\#(method)","type":"\#(request.header("Content-Type") ?? "")","body":\#(request.bodyText)}"#)
                }
            }
            server.route("DELETE", "/users/1") { _ in .status(204) }

            let stamped = AnyInterceptor("stamp") { request, next in
                try await next(request.header("X-Stamp", "yes"))
            }
            let myFiber = Fiber(server.baseURL) { $0.transport = transport }
            let fromFiber = FiberHTTPClient.live(myFiber)
            let fromURL = FiberHTTPClient.live(server.baseURL) {
                $0.interceptors = [stamped]
                $0.transport = transport
            }

            let users: [User] = try await fromFiber.get("/users", ["name": "Zoë"], [:]).decode()
            #expect(users == [User(id: 1, name: "Zoë")])

            for (name, send) in [("POST", fromURL.post), ("PUT", fromURL.put), ("PATCH", fromURL.patch)] {
                let echoed = try await send("/users/1", Data(#"{"n":1}"#.utf8), ["Content-Type": "application/json"])
                #expect(echoed.text == #"{"method":"\#(name)","type":"application/json","body":{"n":1}}"#)
                #expect(server.lastRequest?.header("X-Stamp") == "yes")
            }
            let json = try await fromURL.patch("/users/1", json: User(id: 1, name: "Bo"))
            #expect(json.text.contains(#""type":"application/json""#) && json.text.contains(#""name":"Bo""#))
            #expect(try await fromURL.delete("/users/1", [:], [:]).statusCode == 204)
            let sent = try await fromFiber.send(myFiber.request(.get, "/users", query: ["name": "Al"]))
            #expect(sent.text.contains("Al"))
        }
    }

    /// `@Dependency(\.fiber)` set at startup: the live `\.fiberHTTPClient` follows it.
    @Test func fullFiberAsDependency() async throws {
        try await withLoopbackServer { server, transport in
            server.route("/health", respond: .ok("fine"))
            let seen = Locked<[String]>([])
            let logging = AnyInterceptor("log") { request, next in
                seen.withLock { $0.append(request.url.absoluteString) }
                return try await next(request)
            }
            try await withDependencies {
                $0.context = .live
                $0.fiber = Fiber(server.baseURL) {
                    $0.interceptors = [logging]
                    $0.transport = transport
                }
            } operation: {
                @Dependency(\.fiber) var fiber
                let direct = try await fiber.get("/health")
                @Dependency(\.fiberHTTPClient) var httpClient
                let throughClient = try await httpClient.get("/health", [:], [:])
                #expect(direct.text == "fine" && throughClient.text == "fine")
            }
            #expect(seen.withLock { $0 } == [server.baseURL + "/health", server.baseURL + "/health"])
        }
    }

    /// `@Dependency(\.fiberDefaults)` overridden: readable, and applied to clients this module makes.
    @Test func defaultsAsDependency() async throws {
        try await withLoopbackServer { server, transport in
            server.route("/", respond: .ok("x"))
            try await withDependencies {
                $0.fiberDefaults = FiberDefaults(traceIDGenerator: { "fixed-trace-id" })
            } operation: {
                @Dependency(\.fiberDefaults) var defaults
                #expect(defaults.traceIDGenerator() == "fixed-trace-id")
                let client = FiberHTTPClient.live(server.baseURL) { $0.transport = transport }
                let response = try await client.get("/", [:], [:])
                #expect(response.traceID == "fixed-trace-id")
            }
        }
    }

    /// `FiberHTTPClient.test()` and `.stub(_:)` from FiberDependenciesTesting.
    @Test func testHelpers() async throws {
        let (client, mock) = FiberHTTPClient.test()
        mock.stubAll(StubResponse.ok(body: "{\"ok\": true}"))
        let response = try await client.get("/health", [:], [:])
        #expect(response.text == #"{"ok": true}"# && mock.lastRequest?.url?.path == "/health")
        _ = try await client.post("/items", Data("a".utf8), [:])
        #expect(mock.requestCount == 2 && mock.lastRequest?.httpMethod == "POST" && mock.lastRequest?.httpBody == Data("a".utf8))

        let stubbed = FiberHTTPClient.stub(.ok(body: "stubbed"))
        #expect(try await stubbed.get("/a", [:], [:]).text == "stubbed")
        #expect(try await stubbed.delete("/b", ["q": "1"], [:]).text == "stubbed")

        let failing = FiberHTTPClient.stub(.failure(FiberError.timeout))
        await #expect(throws: FiberError.self) { try await failing.get("/x", [:], [:]) }
    }
}

/// A loopback test server and a transport on a private loop, both shut down afterwards.
func withLoopbackServer(_ body: (TestHTTPServer, HTTPTransport) async throws -> Void) async throws {
    let group = EventLoopGroup(loopCount: 1, name: "fiber-dependencies-test")
    let transport = HTTPTransport(eventLoopGroup: group, configuration: HTTPClient.Configuration())
    let server = try await TestHTTPServer.start(on: group.loops[0])
    do {
        try await body(server, transport)
    } catch {
        await transport.shutdown(); await server.shutdown(); try? await group.shutdown()
        throw error
    }
    await transport.shutdown(); await server.shutdown(); try await group.shutdown()
}
