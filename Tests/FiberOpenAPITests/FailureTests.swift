import Fiber
import FiberOpenAPI
import FiberRuntime
import FiberTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// How failures reach a generated client's caller: `ClientError` with Fiber's typed
/// `FiberError` as the underlying error.
@Suite("OpenAPI calls that fail", .timeLimit(.minutes(1)))
struct FailureTests {
    /// Cancelling the calling task ends a call to a server that never answers: the
    /// error is `FiberError.cancelled` and the socket is closed (the server sees its
    /// connection go; the loop ends with no handle open).
    @Test func cancellingTheTaskCancelsTheRequestAndItsSocket() async throws {
        try await PetStore.with { store in
            let client = store.client
            let call = Task { try await client.getSlow() }
            _ = try await store.server.waitForRequests(1)
            #expect(store.server.openConnectionCount == 1)
            call.cancel()
            let result = await call.result
            guard case .failure(let error) = result else {
                Issue.record("expected the call to fail, got \(result)")
                return
            }
            let clientError = try #require(error as? ClientError, "got \(error)")
            #expect(clientError.operationID == "getSlow")
            guard case .cancelled? = clientError.underlyingError as? FiberError else {
                Issue.record("expected FiberError.cancelled, got \(clientError.underlyingError)")
                return
            }
            try await store.server.waitForOpenConnections(0)
        }
    }

    /// A refused connection is a `ClientError` whose underlying error is
    /// `FiberError.networkError`, the runtime's error inside.
    @Test func aRefusedConnectionSurfacesAsFiberNetworkError() async throws {
        let refusing = RefusingPort()
        let fiber = Fiber("http://127.0.0.1:\(refusing.port)")
        let client = Client(serverURL: try #require(URL(string: "http://127.0.0.1:\(refusing.port)/api")),
                            transport: FiberOpenAPITransport(fiber))
        let error = await clientError { _ = try await client.getPet(path: .init(petId: 1)) }
        let underlying = try #require(error?.underlyingError as? FiberError, "got \(String(describing: error))")
        guard case .networkError(let cause) = underlying else {
            Issue.record("expected .networkError, got \(underlying)")
            return
        }
        #expect(cause is HTTPClientError, "got \(cause)")
        #expect(error?.operationID == "getPet")
    }

    /// A status rejected by the Fiber client's own `validateStatus` is its `.httpError`,
    /// not `.undocumented`: the rule the guide gives for such clients.
    @Test func aClientThatValidatesStatusesThrowsItsHTTPError() async throws {
        try await PetStore.with { store in
            let strict = Fiber(store.server.baseURL) {
                $0.transport = store.fiber.configuration.transport
                $0.validateStatus = { (200...299).contains($0) }
            }
            let client = Client(serverURL: try #require(URL(string: store.server.baseURL + "/api")),
                                transport: FiberOpenAPITransport(strict))
            let error = await clientError { _ = try await client.getMaintenance() }
            guard case .httpError(let status, _, _)? = error?.underlyingError as? FiberError else {
                Issue.record("expected FiberError.httpError, got \(String(describing: error))")
                return
            }
            #expect(status == 503)
        }
    }

    /// An error an interceptor of the client throws reaches the caller as it was thrown.
    @Test func anInterceptorsOwnErrorPassesThroughUnchanged() async throws {
        struct Refused: Error, Equatable { let reason: String }
        let guardrail = AnyInterceptor("guardrail") { _, _ in throw Refused(reason: "no pets today") }
        try await PetStore.with(interceptors: [guardrail]) { store in
            let error = await clientError { _ = try await store.client.getPet(path: .init(petId: 1)) }
            #expect(error?.underlyingError as? Refused == Refused(reason: "no pets today"))
            #expect(store.server.requestCount == 0)
        }
    }

    /// A response head that swift-http-types cannot hold (a transport of one's own can
    /// answer any `Int`) is a typed error, never a crash.
    @Test func aStatusOutsideHTTPTypesRangeIsATypedError() async throws {
        let mock = MockTransport()
        mock.stubAll(StubResponse(statusCode: 1000))
        let fiber = Fiber(baseURL: try #require(URL(string: "http://127.0.0.1:1")), transport: mock)
        let client = Client(serverURL: try #require(URL(string: "http://127.0.0.1:1/api")),
                            transport: FiberOpenAPITransport(fiber))
        let error = await clientError { _ = try await client.getMaintenance() }
        guard case .networkError(let cause)? = error?.underlyingError as? FiberError else {
            Issue.record("expected FiberError.networkError, got \(String(describing: error))")
            return
        }
        #expect(cause as? HTTPTypesConversionError == HTTPTypesConversionError(.invalidStatus, subject: "1000"))
    }
}
