import Fiber
@testable import FiberSharing
import FiberRuntime
import FiberTesting
import Foundation
import Testing

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("fiber-sharing-tests-\(UUID().uuidString)")
    }

    /// The entry files in the directory.
    var entryFiles: [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { $0.hasSuffix(".entry") }.sorted().map { url.appendingPathComponent($0) }
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Everything a live cache test needs: a loopback server, a transport, a
/// virtual clock, a store in a temporary directory and a `SharedFiber` over them.
struct CacheWorld: Sendable {
    let server: TestHTTPServer
    let transport: HTTPTransport
    let clock: TestClock
    let directory: TemporaryDirectory
    let store: SharedCacheStore
    let configuration: SharedReference<FiberConfiguration>

    /// A new client over the world's store and configuration (each has its own flights).
    func fiber(store: SharedCacheStore? = nil) -> SharedFiber {
        let transport = self.transport
        return SharedFiber(configuration: configuration, store: store ?? self.store) { _, fiberConfig in
            fiberConfig.transport = transport
        }
    }

    /// Another store on the same directory and clock (a new process, as far as the cache can tell).
    func reopenedStore(limits: DiskCacheLimits = DiskCacheLimits()) -> SharedCacheStore {
        SharedCacheStore(directory: directory.url, diskLimits: limits, clock: CacheClock(clock.fiberClock))
    }

    /// Moves the virtual time forward.
    func advance(_ seconds: Int) { clock.advance(by: .seconds(seconds)) }
}

/// Runs `body` against a fresh `CacheWorld`, then shuts everything down and checks that no handle leaked.
func withCacheWorld(_ body: (CacheWorld) async throws -> Void) async throws {
    let group = EventLoopGroup(loopCount: 1, name: "fiber-sharing-test")
    var transportConfiguration = HTTPClient.Configuration()
    transportConfiguration.readIdleTimeout = .seconds(20)
    let transport = HTTPTransport(eventLoopGroup: group, configuration: transportConfiguration)
    let server = try await TestHTTPServer.start(on: group.loops[0])
    let clock = TestClock()
    let directory = TemporaryDirectory()
    let baseURL = try #require(URL(string: server.baseURL))
    let world = CacheWorld(
        server: server, transport: transport, clock: clock, directory: directory,
        store: SharedCacheStore(directory: directory.url, clock: CacheClock(clock.fiberClock)),
        configuration: SharedReference(FiberConfiguration(baseURL: baseURL)))
    let result: Result<Void, any Error>
    do { result = .success(try await body(world)) } catch { result = .failure(error) }
    await transport.shutdown()
    await server.shutdown()
    #expect(try await group.leakedHandles() == [:])
    try await group.shutdown()
    directory.remove()
    try result.get()
}

/// A counter safe to bump from many tasks.
final class Counter: Sendable {
    private let value = Locked(0)
    @discardableResult func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

/// The gate of FiberTesting, under the name these tests use.
typealias Gate = TestGate


/// A JSON list of users whose name carries `version`.
func usersJSON(_ version: Int) -> String {
    #"[{"id":1,"name":"v\#(version)"}]"#
}

/// Serves `path` as users named `v1`, `v2`, … (one version per request served), with `headers`.
func serveVersions(_ world: CacheWorld, _ path: String, headers: HTTPHeaders = [:]) {
    let version = Counter()
    world.server.route("GET", path) { _ in
        var response = TestResponse.json(usersJSON(version.increment()))
        for field in headers { response = response.withHeader(field.name, field.value) }
        return response
    }
}
