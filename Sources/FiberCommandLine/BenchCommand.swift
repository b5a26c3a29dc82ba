import ArgumentParser
import FiberLoad
import FiberRuntime
import Foundation

/// `fiber bench URL -c CONNECTIONS -d DURATION [--rate R] …`: a load test with
/// Fiber's HTTP client, closed loop (as wrk) or open loop at a constant rate
/// with coordinated-omission correction (as wrk2); prints a percentile table
/// or, with `--json`, the whole report.
public struct Bench: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Load-test a URL (closed loop, or open loop with --rate).")

    @Argument(help: "The URL (http:// or https://).")
    var url: String

    @Option(name: .shortAndLong, help: "Connections, and requests in flight (default 16).")
    var connections = 16

    @Option(name: .shortAndLong, help: "Seconds of load (default 5).")
    var duration: Double = 5

    @Option(help: "Open loop: requests a second (coordinated omission corrected). Without it, a closed loop.")
    var rate: Double?

    @Option(help: "With --rate: rise linearly from 0 to the rate over this many seconds.")
    var rampUp: Double?

    @Option(name: .shortAndLong, help: "The method (default GET).")
    var method = "GET"

    @Option(name: [.customShort("H"), .long], help: "A header, \"Name: value\" (repeatable).")
    var header: [String] = []

    @Option(help: "A request body.")
    var body: String?

    @Option(help: "Stop after this many requests.")
    var requests: Int?

    @Option(help: "Seconds of unrecorded warm-up (default 0.5).")
    var warmup: Double = 0.5

    @Option(help: "Event loops (threads) for the client (default 1).")
    var loops = 1

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Accept any TLS certificate and host name.")
    var insecure = false

    @Option(help: "A PEM file of CA certificates to trust instead of the system's.")
    var caFile: String?

    public init() {}

    public func run() async throws {
        let out = CommandOutput.current
        guard connections >= 1, duration > 0, loops >= 1 else { throw ValidationError("-c, -d and --loops must be positive") }
        var headers = HTTPHeaders()
        for line in header {
            guard let colon = line.firstIndex(of: ":") else { throw ValidationError("a header is \"Name: value\", not \(line)") }
            headers.append(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let request = try HTTPClientRequest(url: url, method: method, headers: headers, body: body.map { .string($0) })
        let group = EventLoopGroup(loopCount: loops, name: "fiber-bench")
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = connections
        if insecure { configuration.tls.verification = .insecureNoVerification }
        if let caFile { configuration.tls.trustRoots = .file(caFile) }
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)

        let schedule: LoadSchedule = switch (rate, rampUp) {
        case (let rate?, let ramp?): .ramp(from: 0, to: rate, over: .milliseconds(Int64(ramp * 1000)), maxInFlight: connections)
        case (let rate?, nil): .constantRate(perSecond: rate, maxInFlight: connections)
        case (nil, _): .closedLoop(concurrency: connections)
        }
        let test = LoadTest(schedule: schedule, duration: .milliseconds(Int64(duration * 1000)), maxRequests: requests,
                            warmup: .milliseconds(Int64(warmup * 1000)))
        if !json { out.error("\(schedule.summary) against \(url) for \(duration) s\n") }
        let live = !json && out.isTerminal
        let report = await test.run(on: group, progress: { progress in
            guard live else { return }
            let elapsed = progress.elapsed.seconds
            out.error(String(format: "\r  %5.1f s  %9.0f req/s  %d done  %d errors   ", elapsed, progress.recentRate,
                             progress.completed, progress.failed))
        }) {
            let response = try await client.execute(request)
            guard response.status < 400 else { throw LoadFailure(kind: "HTTP \(response.status)") }
            return LoadSample(status: response.status, bytes: response.body.count, timing: response.timing)
        }
        if live { out.error("\n") }
        await client.shutdown()
        try? await group.shutdown()
        out.print(json ? try report.json() : report.table)
    }
}
