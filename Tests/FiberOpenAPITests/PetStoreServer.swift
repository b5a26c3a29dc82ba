import Fiber
import FiberOpenAPI
import FiberRuntime
import FiberTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The loopback server of these tests, answering the operations of `Generated/openapi.yaml`
/// under `/api`, a Fiber client for it on a private loop, and the generated `Client` over
/// `FiberOpenAPITransport`. Everything is shut down afterwards, and the loop must end with
/// no handle open (no socket or timer leaked by a call, however it ended).
struct PetStore {
    let server: TestHTTPServer
    let fiber: Fiber
    let client: Client

    /// The period of `patternedBytes`: a blob is this pattern repeated, one chunk per period.
    static let blobChunk = patternedBytes(65_521, seed: 7)

    /// Starts the server and runs `body` with a store whose Fiber client has `interceptors`.
    static func with<T>(interceptors: [any Interceptor] = [], _ body: (PetStore) async throws -> T) async throws -> T {
        let group = EventLoopGroup(loopCount: 1, name: "fiber-openapi-test")
        var configuration = HTTPClient.Configuration()
        // Patient: in a full parallel run a handler may wait its turn for seconds.
        configuration.readIdleTimeout = .seconds(30)
        let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
        let server = try await TestHTTPServer.start(on: group.loops[0])
        routeOperations(on: server)
        let fiber = Fiber(server.baseURL) {
            $0.transport = transport
            $0.interceptors = interceptors
        }
        let store = PetStore(server: server, fiber: fiber,
                             client: Client(serverURL: try #require(URL(string: server.baseURL + "/api")),
                                            transport: FiberOpenAPITransport(fiber)))
        let result: Result<T, any Error>
        do { result = .success(try await body(store)) } catch { result = .failure(error) }
        await transport.shutdown()
        await server.shutdown()
        let leaked = try await group.leakedHandles()
        #expect(leaked.isEmpty, "handles left open: \(leaked)")
        try await group.shutdown()
        return try result.get()
    }

    /// The operations of the document, as this server answers them.
    private static func routeOperations(on server: TestHTTPServer) {
        server.route("GET", prefix: "/api/pets/") { request in
            guard let id = Int(request.path.dropFirst("/api/pets/".count)) else { return .status(400) }
            if id == 404 { return .json(#"{"message":"no pet 404"}"#, status: 404) }
            let pet = PetRecord(id: id, name: "Pet \(id)", tag: request.header("X-Request-Tag"),
                                includes: request.queryItems.filter { $0.name == "include" }.compactMap(\.value))
            return .json(String(decoding: try JSONEncoder().encode(pet), as: UTF8.self))
        }
        server.route("POST", "/api/pets") { request in
            let new = try JSONDecoder().decode(PetRecord.New.self, from: Data(request.body))
            let pet = PetRecord(id: 1, name: new.name, tag: new.tag, includes: nil)
            return .json(String(decoding: try JSONEncoder().encode(pet), as: UTF8.self), status: 201)
        }
        server.route("GET", prefix: "/api/blobs/") { request in
            guard let chunks = Int(request.path.dropFirst("/api/blobs/".count)) else { return .status(400) }
            return .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
                for _ in 0..<chunks { try await writer.write(blobChunk) }
            }
        }
        server.route("PUT", "/api/uploads") { request in
            let chunked = request.header("Transfer-Encoding")?.lowercased() == "chunked"
            return .json(#"{"bytes":\#(request.body.count),"chunked":\#(chunked)}"#)
        }
        server.route("GET", "/api/maintenance") { _ in .text("down for maintenance", status: 503) }
        server.route("GET", "/api/slow", respond: .fault(.silent))
    }
}

/// A pet as the server writes it (the generated types are the client's).
struct PetRecord: Codable {
    let id: Int
    let name: String
    let tag: String?
    let includes: [String]?

    /// A pet to create, as the server reads it.
    struct New: Codable {
        let name: String
        let tag: String?
    }
}

/// The `ClientError` that `body` throws, or nil (recorded as an issue) when it throws another error or none.
func clientError(sourceLocation: SourceLocation = #_sourceLocation,
                 _ body: () async throws -> Void) async -> ClientError? {
    do {
        try await body()
        Issue.record("expected a ClientError, but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as ClientError {
        return error
    } catch {
        Issue.record("expected a ClientError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
