import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Everything one row of the matrix runs against: its link, the project's test
/// server and nginx inside the servers' namespace, and a client on a group of
/// its own whose loop's thread is in the client's namespace.
struct FaultRig: Sendable {
    let network: FaultNetwork
    let server: TestHTTPServer
    let nginx: NamespaceNginx
    let client: HTTPClient
    /// The client's group (one loop, in the client's namespace).
    let clientGroup: EventLoopGroup

    /// The files nginx serves under `/files/` and `/slow/`.
    static let files: [String: [UInt8]] = [
        "1m.bin": patternedBytes(1024 * 1024, seed: 1),
        "2m.bin": patternedBytes(2 * 1024 * 1024, seed: 2),
        "4m.bin": patternedBytes(4 * 1024 * 1024, seed: 4),
    ]

    /// `path` on the test server.
    func serverURL(_ path: String) -> String { server.url(path) }
    /// `path` on nginx, by its IPv4 address.
    func nginxURL(_ path: String) -> String { "http://\(network.serverIPv4)" + path }

    /// Requests the test server received for `path`.
    func requestsReceived(_ path: String) -> Int { server.recordedRequests().filter { $0.path == path }.count }
}

/// Runs `body` with a fresh rig for `row` whose namespaces `link` joins, then checks that the client's pool is at
/// rest (nothing leased, connecting or waiting) and that its loops hold no handle, and
/// takes everything down (servers, namespace, link) whatever happened.
/// Skips the test, saying why, where namespaces cannot be made.
func withFaultRig(
    row: Int, link: FaultNetwork.Link = .veth, sourceLocation: SourceLocation = #_sourceLocation,
    configure: (inout HTTPClient.Configuration) -> Void = { _ in },
    _ body: (FaultRig) async throws -> Void
) async throws {
    let network = try await FaultNetwork.make(row: row, link: link)
    var serverGroup: EventLoopGroup?
    var server: TestHTTPServer?
    var nginx: NamespaceNginx?
    let clientGroup = EventLoopGroup(loopCount: 1, name: "fault-client")
    var client: HTTPClient?
    func tearDown() async {
        await client?.shutdown()
        try? await clientGroup.shutdown()
        await nginx?.stop()
        await server?.shutdown()
        try? await serverGroup?.shutdown()
        await network.remove()
    }
    do {
        try await network.joinClient(clientGroup.loops[0])
        let started = try await NamespaceTestServer.start(in: network)
        (server, serverGroup) = (started.server, started.group)
        installRoutes(on: started.server)
        nginx = try await NamespaceNginx.start(in: network, files: FaultRig.files, probeOn: clientGroup.loops[0])
        var configuration = HTTPClient.Configuration()
        configuration.resolver = Resolver(cacheTTL: .zero)
        configure(&configuration)
        let made = HTTPClient(eventLoopGroup: clientGroup, configuration: configuration)
        client = made
        try await body(FaultRig(network: network, server: started.server, nginx: nginx!, client: made, clientGroup: clientGroup))
        if let retransmitted = await network.retransmissions(), retransmitted.client + retransmitted.server > 0 {
            RowLog.current?.note("TCP retransmitted \(retransmitted.server) segments from the servers, \(retransmitted.client) from the client")
        }
        let rest = await waitForRest(made)
        if let report = await network.stopDelayLine() { RowLog.current?.note(report.description) }
        #expect(rest.leased == 0 && rest.connecting == 0 && rest.waiting == 0 && rest.open == rest.idle,
                "the pool is not at rest after the row: \(rest)", sourceLocation: sourceLocation)
        await made.shutdown()
        client = nil
        let leaked = try await clientGroup.leakedHandles(within: .seconds(2))
        #expect(leaked.isEmpty, "open handles left per loop: \(leaked)", sourceLocation: sourceLocation)
    } catch {
        await tearDown()
        throw error
    }
    await tearDown()
}

/// The test server's routes: `/small` (a short text), `/upload` (answers with the
/// size and FNV-1a hash of what arrived), `/headers` (answers with 16 KiB of header
/// fields and the size of the request's own).
private func installRoutes(on server: TestHTTPServer) {
    server.route("GET", "/small") { _ in .ok("small") }
    server.route("POST", "/upload") { request in .ok("\(request.body.count):\(fnv1a(request.body))") }
    server.route("GET", "/headers") { request in
        var response = TestResponse.ok("\(request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })")
        for i in 0..<32 { response = response.withHeader("X-Filler-\(i)", String(repeating: Character(String(i % 10)), count: 500)) }
        return response
    }
}

/// Waits up to 5 s for the pool to settle (a failed connection's close is a loop turn or two away).
private func waitForRest(_ client: HTTPClient) async -> ConnectionPoolStatistics {
    let deadline = ContinuousClock.now + .seconds(5)
    var statistics = await client.statistics()
    while statistics.leased + statistics.connecting + statistics.waiting > 0 || statistics.open != statistics.idle,
          ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(20))
        statistics = await client.statistics()
    }
    return statistics
}

/// The 64-bit FNV-1a hash of `bytes`: the checksum of an upload, computed on both sides.
func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into start: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
    var hash = start
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
}
