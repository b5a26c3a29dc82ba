import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Fiber` over a Unix domain socket (an `http+unix` base URL, or an origin pinned
/// to a socket), and `Fiber` decoding brotli and zstd bodies.
@Suite("Fiber over Unix sockets and new codings", .timeLimit(.minutes(1)))
struct UnixSocketThroughFiberTests {
    /// `withLiveServer` with the server on a fresh Unix socket (`origin`, if given, pinned to it).
    private func withUnixServer(
        pinning origin: String? = nil, _ body: (TestHTTPServer, HTTPTransport) async throws -> Void
    ) async throws {
        let path = "/tmp/fiber-api-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        defer { unlink(path) }
        try await withLiveServer(configure: { if let origin { $0.unixSocketOrigins = [origin: path] } },
                                 server: { try await TestHTTPServer.start(unixPath: path, on: $0) }, body)
    }

    @Test func anHTTPUnixBaseURLCarriesRequestsAndBodies() async throws {
        try await withUnixServer { server, transport in
            server.route("GET", "/users") { request in .json(#"[{"id":1,"name":"\#(request.header("Host") ?? "")"}]"#) }
            server.route("POST", "/users") { request in .json(request.bodyText, status: 201) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let users: [User] = try await fiber.get("/users").decode()
            #expect(users == [User(id: 1, name: "localhost")])
            let created = try await fiber.post("/users", body: User(id: 2, name: "Eve"))
            let decoded = try created.decode(User.self)
            #expect(created.statusCode == 201 && decoded == User(id: 2, name: "Eve"))
        }
    }

    @Test func anOriginPinnedToASocketIsReachedByItsName() async throws {
        try await withUnixServer(pinning: "http://users.invalid") { server, transport in
            server.route("/users") { request in .json(#"[{"id":7,"name":"\#(request.header("Host") ?? "")"}]"#) }
            let fiber = Fiber("http://users.invalid") { $0.transport = transport }
            let users: [User] = try await fiber.get("/users").decode()
            #expect(users == [User(id: 7, name: "users.invalid")])
        }
    }

    @Test func aMissingSocketIsANetworkErrorNamingThePath() async throws {
        let path = "/tmp/fiber-api-missing-\(getpid()).sock"
        try await withLiveServer { _, transport in
            let fiber = Fiber(HTTPTarget(scheme: "http+unix", host: path, port: 80, pathAndQuery: "").origin) { $0.transport = transport }
            await expectFiberError({ error in
                guard case .networkError(let underlying) = error else { return false }
                return "\(underlying)".contains(path) && (underlying as? HTTPClientError)?.transport?.kind == .noSuchSocket
            }) { try await fiber.get("/") }
        }
    }

    /// Every coding built in, made by its reference tool, decodes through `Fiber`.
    @Test func brotliAndZstdBodiesDecodeThroughFiber() async throws {
        let text = Array((0..<5_000).map { "entry \($0)\n" }.joined().utf8)
        var bodies: [(coding: String, bytes: [UInt8])] = [("gzip", try await CompressionTool.run("gzip -c {IN}", input: text))]
        #if Brotli
        bodies.append(("br", try await CompressionTool.brotli(text)))
        #endif
        #if Zstd
        bodies.append(("zstd", try await CompressionTool.zstd(text)))
        #endif
        try await withLiveServer { server, transport in
            for body in bodies {
                server.route("/\(body.coding)", respond: .bytes(body.bytes, headers: ["Content-Encoding": body.coding]))
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            for body in bodies {
                let response = try await fiber.get("/\(body.coding)")
                #expect(Array(response.data) == text, "\(body.coding)")
            }
            #expect(server.lastRequest?.header("Accept-Encoding") == HTTPClient.contentCodings.joined(separator: ", "))
        }
    }
}
