import Fiber
import FiberOpenAPI
import FiberRuntime
import FiberTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The generated client over `FiberOpenAPITransport`, against the loopback server:
/// parameters and JSON both ways, documented and undocumented statuses, and the
/// Fiber client's interceptors applied to generated calls.
@Suite("Generated client over FiberOpenAPITransport", .timeLimit(.minutes(1)))
struct GeneratedClientTests {
    @Test func aGetWithPathQueryAndHeaderParametersDecodesItsJSON() async throws {
        try await PetStore.with { store in
            let output = try await store.client.getPet(path: .init(petId: 42), query: .init(include: ["owner", "a b&c"]),
                                                       headers: .init(xRequestTag: "blue"))
            let pet = try output.ok.body.json
            #expect(pet.id == 42)
            #expect(pet.name == "Pet 42")
            #expect(pet.tag == "blue")
            #expect(pet.includes == ["owner", "a b&c"])
            let request = try #require(store.server.lastRequest)
            #expect(request.method == "GET")
            #expect(request.path == "/api/pets/42")
            #expect(request.header("Accept") == "application/json")
        }
    }

    @Test func aDocumentedErrorStatusIsItsOwnCase() async throws {
        try await PetStore.with { store in
            let output = try await store.client.getPet(path: .init(petId: 404))
            #expect(try output.notFound.body.json.message == "no pet 404")
        }
    }

    @Test func aPostSendsItsJSONBody() async throws {
        try await PetStore.with { store in
            let output = try await store.client.createPet(body: .json(.init(name: "Rex", tag: "dog")))
            let pet = try output.created.body.json
            #expect(pet.id == 1 && pet.name == "Rex" && pet.tag == "dog")
            let request = try #require(store.server.lastRequest)
            #expect(request.header("Content-Type") == "application/json; charset=utf-8")
            let sent = try JSONDecoder().decode(PetRecord.New.self, from: Data(request.body))
            #expect(sent.name == "Rex" && sent.tag == "dog")
        }
    }

    /// A 503 the document does not list is `.undocumented`, its status and body intact:
    /// the transport hands every status to the generated client.
    @Test func anUndocumentedStatusIsTheUndocumentedCase() async throws {
        try await PetStore.with { store in
            let output = try await store.client.getMaintenance()
            guard case .undocumented(let status, let payload) = output else {
                Issue.record("expected .undocumented, got \(output)")
                return
            }
            #expect(status == 503)
            let body = try #require(payload.body)
            let text = try await String(collecting: body, upTo: 1024)
            #expect(text == "down for maintenance")
            #expect(payload.headerFields[.contentType] == "text/plain; charset=utf-8")
        }
    }

    /// The Fiber client's interceptors run for generated calls: one sees the operation
    /// and adds a header the server receives, another retries a 503.
    @Test func theClientsInterceptorsApplyToGeneratedCalls() async throws {
        let seen = Locked<[String]>([])
        let auth = AnyInterceptor("auth") { request, next in
            seen.withLock { $0.append("\(request.httpMethod) \(request.metadata[FiberOpenAPITransport.operationIDKey] ?? "-")") }
            return try await next(request.header("Authorization", "Bearer token-1"))
        }
        try await PetStore.with(interceptors: [RetryInterceptor(maxRetries: 2, baseDelay: 0.01), auth]) { store in
            let attempts = Locked(0)
            store.server.route("GET", "/api/maintenance") { _ in
                attempts.withLock { $0 += 1; return $0 } == 1 ? .text("busy", status: 503) : .text("up")
            }
            let output = try await store.client.getMaintenance()
            let text = try await String(collecting: try output.ok.body.plainText, upTo: 1024)
            #expect(text == "up")
            #expect(seen.withLock { $0 } == ["GET getMaintenance", "GET getMaintenance"])
            #expect(store.server.recordedRequests().map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-1"])
        }
    }
}
