import ArgumentParser
import FiberLoad
import FiberRuntime
import Foundation

/// `fiber bench URL -c CONNECTIONS -d DURATION [--rate R] …`: a load test with
/// Fiber's HTTP client, closed loop (as wrk) or open loop at a constant rate
/// with coordinated-omission correction (as wrk2); prints a percentile table
/// or, with `--json`, the whole report; `--latency` adds the full percentile
/// spectrum and `--hgrm FILE` writes it for HdrHistogram's plotter.
/// `--fail-if` thresholds make the exit status a verdict for CI.
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

    @OptionGroup var tls: TLSOptions

    @OptionGroup var proxy: ProxyOptions

    @Flag(help: "Also print the detailed percentile spectrum (as wrk2's --latency).")
    var latency = false

    @Option(help: "Write the latency distribution to this file in HdrHistogram's .hgrm format (milliseconds).")
    var hgrm: String?

    @Option(name: .customLong("fail-if"),
            help: "Exit 2 when the report crosses this threshold: p50|p90|p99|p999|max|mean>DURATION (us, ms, s), errors>N or N%, rps<N (repeatable).",
            transform: { try LoadThreshold(parsing: $0) })
    var failIf: [LoadThreshold] = []

    @Option(help: "Seconds for each request, waiting for a connection included; one that takes longer counts as an error.")
    var timeout: Double?

    @Flag(help: "Send Connection: close: a new connection for every request.")
    var noKeepalive = false

    public init() {}

    public func run() async throws {
        let out = CommandOutput.current
        guard connections >= 1, duration > 0, loops >= 1 else { throw ValidationError("-c, -d and --loops must be positive") }
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be positive") }
        var headers = HTTPHeaders()
        for line in header {
            guard let colon = line.firstIndex(of: ":") else { throw ValidationError("a header is \"Name: value\", not \(line)") }
            headers.append(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        if noKeepalive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let request = try HTTPClientRequest(url: url, method: method, headers: headers, body: body.map { .string($0) })
        let group = EventLoopGroup(loopCount: loops, name: "fiber-bench")
        var configuration = HTTPClient.Configuration()
        configuration.maxConnectionsPerHost = connections
        configuration.tls = tls.applied(to: configuration.tls)
        configuration.proxy = proxy.configuration
        if let timeout { configuration.requestTimeout = .milliseconds(Int64(timeout * 1000)) }
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)

        let schedule: LoadSchedule = switch (rate, rampUp) {
        case (let rate?, let ramp?): .ramp(from: 0, to: rate, over: .milliseconds(Int64(ramp * 1000)), maxInFlight: connections)
        case (let rate?, nil): .constantRate(perSecond: rate, maxInFlight: connections)
        case (nil, _): .closedLoop(concurrency: connections)
        }
        let test = LoadTest(schedule: schedule, duration: .milliseconds(Int64(duration * 1000)), maxRequests: requests,
                            warmup: .milliseconds(Int64(warmup * 1000)))
        // A proxy in the way changes what is measured: say so.
        let through = (try? configuration.proxy.selector().proxy(for: request.target)).map { " through \($0)" } ?? ""
        if !json { out.error("\(schedule.summary) against \(url)\(through) for \(duration) s\n") }
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
        if latency, !json { out.print(report.percentileSpectrum) }
        if let hgrm {
            guard FileManager.default.createFile(atPath: hgrm, contents: Data(report.hgrm.utf8)) else {
                throw CommandLineError("cannot write \(hgrm)")
            }
        }
        let crossed = failIf.filter { $0.isCrossed(by: report) }
        guard crossed.isEmpty else {
            for threshold in crossed { out.error("fiber: threshold crossed: \(threshold.breach(in: report))\n") }
            throw ExitCode(FiberExitCode.thresholdCrossed.rawValue)
        }
    }
}
