import FiberLoad
import FiberRuntime
import FiberTesting
import Foundation
import Synchronization
import Testing

/// The load generator against the loopback test server: counts, statuses,
/// errors, phases, the open loop's timetable and its correction.
@Suite(.serialized) struct LoadTestTests {
    static func withServer(_ body: (HTTPClient, TestHTTPServer, EventLoopGroup) async throws -> Void) async throws {
        let group = EventLoopGroup(loopCount: 2, name: "load-test")
        let server = try await TestHTTPServer.start(on: group.loops[0])
        server.route("/ok", respond: .ok("fine"))
        server.route("/fail", respond: .text("no", status: 503))
        var configuration = HTTPClient.Configuration()
        configuration.readIdleTimeout = .seconds(30)
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        try await body(client, server, group)
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    static func get(_ client: HTTPClient, _ url: String) async throws -> LoadSample {
        let response = try await client.execute(HTTPClientRequest(url: url))
        guard response.status < 400 else { throw LoadFailure(kind: "HTTP \(response.status)") }
        return LoadSample(status: response.status, bytes: response.body.count, timing: response.timing)
    }

    @Test func closedLoopStopsAtItsRequestCount() async throws {
        try await Self.withServer { client, server, group in
            let test = LoadTest(schedule: .closedLoop(concurrency: 8), duration: .seconds(60), maxRequests: 300)
            let report = await test.run(on: group) { try await Self.get(client, server.url("/ok")) }
            #expect(report.succeeded == 300 && report.failed == 0)
            #expect(report.latency.count == 300)
            #expect(report.statuses == [200: 300])
            #expect(report.bytes == 300 * 4)
            #expect(server.requestCount == 300)
            // Each worker keeps to its loop, so each loop's pool serves four
            // at a time, and opens a connection only for a request that no
            // connection being opened will serve: eight at most.
            #expect(server.connectionCount <= 8)
            // A request that waited for a new connection reports its setup. A
            // connection opened for a request that a freed connection served
            // first reports none (it waits idle in the pool), so the phases can
            // count fewer connections than the server saw, never more.
            let connects = Int(report.phases["connect"]?.count ?? 0)
            #expect(connects >= 1 && connects <= server.connectionCount, "\(connects) connect phases, \(server.connectionCount) connections")
            #expect(report.phases["transport"]?.count == 300)
            #expect(report.latency.min <= report.latency.p50 && report.latency.p50 <= report.latency.max)
            #expect(!report.correctedForCoordinatedOmission)
            // Every connection the server saw is one the pools hold: closing them closes all.
            await client.shutdown()
            try await server.waitForOpenConnections(0)
        }
    }

    @Test func aClosedLoopOpensNoMoreConnectionsThanItsConcurrencyWhenSetupIsSlow() async throws {
        // Behind the relay every TLS handshake but the first takes 300 ms, while
        // the first connection serves request after request: each new request
        // finds the other three still being opened, and must wait for one of
        // them (or the first, freed), not open a fifth.
        let pki = try await TestCertificates.shared()
        let group = EventLoopGroup(loopCount: 1, name: "slow-setup")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = TLSConfiguration.server(identity: pki.serverIdentity())
        let server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
        server.route("/ok", respond: .ok("fine"))
        let relay = try await SlowSetupRelay.start(to: server.port, delayingAllButTheFirstBy: .milliseconds(300), on: group.loops[0])
        var configuration = HTTPClient.Configuration()
        configuration.tls = pki.clientTrustingRoot
        configuration.readIdleTimeout = .seconds(30)
        configuration.socket.connectTimeout = .seconds(30)
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        let test = LoadTest(schedule: .closedLoop(concurrency: 4), duration: .seconds(60), maxRequests: 200)
        let report = await test.run(on: group) { try await Self.get(client, "https://127.0.0.1:\(relay.port)/ok") }
        #expect(report.succeeded == 200 && report.failed == 0)
        let opened = relay.acceptedCount
        #expect(opened <= 4, "\(opened) connections for 4 requests at a time")
        #expect(Int(report.phases["tls"]?.count ?? 0) <= opened)
        await client.shutdown()
        await relay.stop()
        await server.shutdown()
        try await group.shutdown()
    }

    @Test func errorsAreTalliedByKind() async throws {
        try await Self.withServer { client, server, group in
            let test = LoadTest(schedule: .closedLoop(concurrency: 2), duration: .seconds(60), maxRequests: 40)
            let counter = Counter()
            let report = await test.run(on: group) {
                let n = counter.next()
                if n % 4 == 0 { return try await Self.get(client, "http://127.0.0.1:1/") }  // refused
                return try await Self.get(client, server.url(n % 2 == 0 ? "/fail" : "/ok"))
            }
            #expect(report.succeeded == 20)
            #expect(report.errors == ["HTTP 503": 10, "connection refused": 10])
            #expect(report.table.contains("10 × HTTP 503"))
            let json = try report.json()
            #expect(json.contains("\"connection refused\" : 10"))
        }
    }

    @Test func openLoopFollowsItsTimetable() async throws {
        try await Self.withServer { client, server, group in
            let test = LoadTest(schedule: .constantRate(perSecond: 200, maxInFlight: 16), duration: .milliseconds(500))
            let seen = ProgressLog()
            let report = await test.run(on: group, progressInterval: .milliseconds(100), progress: { seen.add($0) }) {
                try await Self.get(client, server.url("/ok"))
            }
            // Exactly the timetable's requests: 200/s for 0.5 s.
            #expect(report.succeeded == 100)
            #expect(server.requestCount == 100)
            #expect(report.correctedForCoordinatedOmission)
            #expect(report.schedule.contains("open loop"))
            #expect(!seen.isEmpty, "progress is reported while the test runs")
        }
    }

    @Test func openLoopCountsTheWaitOfRequestsQueuedBehindASlowOne() async throws {
        // One slot, each request at least 10 ms, 20 requests due in 20 ms: the
        // last one starts 190 ms or more after it was due, and its latency says so.
        let test = LoadTest(schedule: .constantRate(perSecond: 1000, maxInFlight: 1), duration: .milliseconds(20))
        let report = await test.run {
            try await Task.sleep(for: .milliseconds(10))
            return LoadSample()
        }
        #expect(report.succeeded == 20)
        #expect(report.latency.max >= 150_000, "max \(report.latency.max) µs")
        // A closed loop measures only the service time.
        let closed = LoadTest(schedule: .closedLoop(concurrency: 1), duration: .seconds(60), maxRequests: 5)
        let closedReport = await closed.run {
            try await Task.sleep(for: .milliseconds(10))
            return LoadSample()
        }
        #expect(closedReport.succeeded == 5)
        #expect(closedReport.latency.min >= 10_000)
    }

    @Test func warmupIsNotRecorded() async throws {
        try await Self.withServer { client, server, group in
            let test = LoadTest(schedule: .closedLoop(concurrency: 2), duration: .seconds(60), maxRequests: 10, warmup: .milliseconds(50))
            let report = await test.run(on: group) { try await Self.get(client, server.url("/ok")) }
            #expect(report.succeeded == 10)
            #expect(server.requestCount > 10, "the warm-up sent requests too")
        }
    }
}

final class Counter: Sendable {
    private let value = Locked(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

final class ProgressLog: Sendable {
    private let entries = Locked<[LoadTest.Progress]>([])
    func add(_ progress: LoadTest.Progress) { entries.withLock { $0.append(progress) } }
    var isEmpty: Bool { entries.withLock { $0.isEmpty } }
}
