import FiberLoad
import FiberRuntime
import FiberTesting

/// The demo's load test: five seconds of keep-alive GETs against the
/// loopback test server, closed loop with 16 connections, and its histogram.
enum LoadDemo {
    static func run(seconds: Int = 5) async throws {
        let group = EventLoopGroup(loopCount: 2, name: "load-demo")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.recordsRequests = false
        let server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
        server.route("/hello", respond: .ok("Hello, world!"))
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = 8  // per loop: 16 in all
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        let request = try HTTPClientRequest(url: server.url("/hello"))
        let test = LoadTest(schedule: .closedLoop(concurrency: 16), duration: .seconds(seconds), maxRequests: 5_000_000,
                            warmup: .milliseconds(200))
        print("closed loop, 16 connections, \(seconds) s against \(server.url("/hello")) (server and client share this process)")
        let report = await test.run(on: group) {
            let response = try await client.execute(request)
            return LoadSample(status: response.status, bytes: response.body.count, timing: response.timing)
        }
        print(report.table)
        print(histogram(report))
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    /// Bars for the latency percentiles.
    static func histogram(_ report: LoadReport) -> String {
        let rows: [(String, UInt64)] = [("p50", report.latency.p50), ("p90", report.latency.p90), ("p99", report.latency.p99),
                                        ("p99.9", report.latency.p999), ("max", report.latency.max)]
        let top = max(1, rows.map(\.1).max() ?? 1)
        return rows.map { name, value in
            let width = Int((Double(value) / Double(top) * 40).rounded(.up))
            return "  \(name.padding(toLength: 6, withPad: " ", startingAt: 0)) \(String(repeating: "█", count: max(1, width))) \(value) µs"
        }.joined(separator: "\n")
    }
}
