import Fiber
import FiberTesting

/// The loopback server with `GET /slow`, whose answers ("slow done") wait until
/// the test opens the gate: requests to it stay in flight as long as a test needs.
struct HeldServer {
    let server: TestHTTPServer
    let gate = TestGate()

    static func start() async throws -> HeldServer {
        let held = HeldServer(server: try await TestHTTPServer.start())
        held.server.route("GET", "/slow") { [gate = held.gate] _ in
            await gate.wait()
            return .text("slow done")
        }
        held.server.route("GET", "/fast", respond: .text("fast"))
        return held
    }

    var baseURL: String { server.baseURL }

    /// A client of the server on a transport of its own (so that its connections can be counted and closed).
    func client() -> (Fiber, HTTPTransport) {
        let transport = HTTPTransport(eventLoopGroup: .shared)
        return (Fiber(server.baseURL) { $0.transport = transport }, transport)
    }

    /// Waits until `count` requests are held at the server.
    func waitForHeld(_ count: Int) async throws {
        try await waitUntil("\(count) requests held at the server") { await gate.waiting == count }
    }

    /// Lets the held requests be answered, then stops the server.
    func finish() async {
        await gate.open()
        await server.shutdown()
    }
}

extension Result where Failure == any Error {
    /// The result of `body`, thrown or not.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }

    /// The failure as a `FiberError`, if it is one.
    var fiberError: FiberError? {
        if case .failure(let error as FiberError) = self { error } else { nil }
    }

    /// True when it failed with `FiberError.cancelled`.
    var isCancelled: Bool {
        if case .cancelled? = fiberError { true } else { false }
    }
}
