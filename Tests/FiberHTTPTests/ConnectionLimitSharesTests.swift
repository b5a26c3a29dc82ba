@testable import FiberRuntime
import FiberTesting
import Testing

/// The per-host limit holds for the whole client: split over its loops, the
/// shares add up to it, and a client on several loops opens no more than it.
@Suite("Connection limit shares", .timeLimit(.minutes(1)))
struct ConnectionLimitSharesTests {
    @Test(arguments: [(8, 2, [4, 4]), (5, 2, [3, 2]), (1, 2, [1, 0]), (3, 4, [1, 1, 1, 0]), (64, 3, [22, 21, 21]), (7, 1, [7])])
    func theLimitIsSplitEvenlyAndAddsUp(limit: Int, loops: Int, expected: [Int]) {
        let shares = ConnectionLimitShares(maxConnections: limit, maxIdle: limit, loopCount: loops)
        #expect(shares.connections == expected)
        #expect(shares.connections.reduce(0, +) == limit)
        #expect(shares.idle == expected)
    }

    @Test func idleSharesNeverExceedTheConnectionShares() {
        let shares = ConnectionLimitShares(maxConnections: 3, maxIdle: 5, loopCount: 2)
        #expect(shares.connections == [2, 1])
        #expect(shares.idle == [2, 1])
        let none = ConnectionLimitShares(maxConnections: 4, maxIdle: 0, loopCount: 2)
        #expect(none.idle == [0, 0])
    }

    @Test func loopsWithoutAShareHaveNoPoolAndSendNothing() {
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = 1
        let limits = configuration.poolLimits(loopCount: 3)
        #expect(limits.map { $0?.maxConnections } == [1, nil, nil])
    }

    /// A two-loop client with a small limit, loaded from off the loops (requests spread
    /// over both): the server never sees more connections than the limit.
    @Test(arguments: [1, 3])
    func aClientOnTwoLoopsOpensAtMostItsLimit(limit: Int) async throws {
        let group = EventLoopGroup(loopCount: 2, name: "limit-test")
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = limit
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        let server = try await TestHTTPServer.start(on: group.loops[0])
        server.route("/") { _ in .delay(.milliseconds(20), then: .ok("x")) }
        let url = server.url("/")
        try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0..<12 { tasks.addTask { try await client.execute(HTTPClientRequest(url: url)).status } }
            for try await status in tasks { #expect(status == 200) }
        }
        #expect(server.connectionCount <= limit, "\(server.connectionCount) connections for a limit of \(limit)")
        #expect(server.connectionCount >= 1)
        let stats = await client.statistics()
        #expect(stats.open <= limit && stats.waiting == 0 && stats.leased == 0, "\(stats)")
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }
}
