import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct CreateUserBody: Codable, Sendable {
    let name: String
    let email: String
}

let apiURL = URL(string: "https://api.example.com")!

/// A client over a fresh mock.
func mockFiber(_ interceptors: [any Interceptor] = []) -> (Fiber, MockTransport) {
    let mock = MockTransport()
    return (Fiber(baseURL: apiURL, interceptors: interceptors, transport: mock), mock)
}

/// Expects `body` to throw a `FiberError` that `matches`.
func expectFiberError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (FiberError) -> Bool,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected a FiberError, but it succeeded", sourceLocation: sourceLocation)
    } catch let error as FiberError {
        #expect(matches(error), "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a FiberError, got \(error)", sourceLocation: sourceLocation)
    }
}

/// A counter safe to bump from many tasks.
final class Counter: Sendable {
    private let value = Locked(0)
    @discardableResult func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
    func callAsFunction() -> Int { count }
}

/// A real loopback server and a client whose transport is the runtime's HTTP
/// client on a private group; everything is shut down afterwards.
func withLiveServer<T>(
    configure: (inout HTTPClient.Configuration) -> Void = { _ in },
    server start: (EventLoop) async throws -> TestHTTPServer = { try await TestHTTPServer.start(on: $0) },
    _ body: (TestHTTPServer, HTTPTransport) async throws -> T
) async throws -> T {
    let group = EventLoopGroup(loopCount: 1, name: "fiber-api-test")
    var configuration = HTTPClient.Configuration()
    configuration.readIdleTimeout = .seconds(10)
    configure(&configuration)
    let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
    let server = try await start(group.loops[0])
    do {
        let result = try await body(server, transport)
        await transport.shutdown()
        await server.shutdown()
        try await group.shutdown()
        return result
    } catch {
        await transport.shutdown()
        await server.shutdown()
        try? await group.shutdown()
        throw error
    }
}


/// The gate of FiberTesting, under the name these tests use.
typealias Gate = TestGate

/// A transport that answers `METHOD /path` after its gate opens, counting calls.
struct GatedTransport: FiberTransport {
    let gate: Gate
    let calls = Counter()

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        calls.increment()
        await gate.wait()
        return (Data("\(request.httpMethod ?? "") \(request.url?.path ?? "")".utf8), TransportResponse(statusCode: 200))
    }
}

/// `seconds` since 1970 written as an IMF-fixdate (the weekday is not checked by either reading).
func imfFixdate(_ seconds: Int) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "GMT") ?? .current
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                    from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ n: Int?) -> String { String((n ?? 0) + 100).dropFirst().description }
    return "Mon, \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 0) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
}

/// Every string made from `base` by putting one of `bytes` in one of its positions (the
/// inputs of tests that compare two readings of the same text).
func everyOneByteChange(of base: String, using bytes: String) -> [String] {
    let original = Array(base.utf8)
    return original.indices.flatMap { position in
        bytes.utf8.map { byte in
            var changed = original
            changed[position] = byte
            return String(decoding: changed, as: UTF8.self)
        }
    }
}
