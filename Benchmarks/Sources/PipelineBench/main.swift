import Crypto
import Foundation
import Fiber
import FiberRuntime
import FiberSQLite
import HTTPBenchKit
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The cost of Fiber's interceptor pipeline, run by `Scripts/bench-pipeline`:
// the same keep-alive GETs through `Fiber.send` over the real transport, with no
// interceptor (`--pipeline none`) or with all seven built-ins (`--pipeline seven`),
// in the guide's recommended order. Each request has its own query (`?n=…`), so the
// cache misses, stores and evicts on every request instead of answering from memory;
// the other six do their full work on a 200: a token on every request, the retry
// and rate-limit decisions, an encryption pass (no body to encrypt; nginx answers in
// clear, so responses are not decrypted), four log lines built and handed to a
// swift-log logger that drops them, and a swift-metrics report (no backend).
//
// `--versus seven` runs both pipelines in one process, taking turns (`InterleavedPhases`):
// the least noisy comparison on a shared machine.
//
// `--canned` answers every request in memory with nginx's response head instead of
// the network, so CPU time per request is the pipeline's alone, free of the noise of
// sockets: `--pipeline none --canned` against `--pipeline cache --canned` is the cost
// of the cache to within a fraction of a microsecond.

var arguments = Array(CommandLine.arguments.dropFirst())
var pipeline = "none"
if let i = arguments.firstIndex(of: "--pipeline"), i + 1 < arguments.count {
    pipeline = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
let canned = arguments.contains("--canned")
arguments.removeAll { $0 == "--canned" }
// `--versus seven` (interleaved): one process, two clients over one transport, taking
// turns in phases of `--phase-ms` (100): see `InterleavedPhases`.
var versus: String?
var phaseMilliseconds = 100
if let i = arguments.firstIndex(of: "--versus"), i + 1 < arguments.count {
    versus = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
if let i = arguments.firstIndex(of: "--phase-ms"), i + 1 < arguments.count, let ms = Int(arguments[i + 1]), (10...10_000).contains(ms) {
    phaseMilliseconds = ms
    arguments.removeSubrange(i...(i + 1))
}
// `--style async|completion|chain` is how each request is made: awaited (`Fiber.send`),
// with a completion (`Fiber.send(_:as:queue:completion:)`, resumed from the completion),
// or through the serializer chain (`fiber.chain(request).responseData()`).
// `--versus-style S` interleaves two styles over one pipeline, as `--versus` does pipelines.
let styles = ["async", "completion", "chain"]
var style = "async"
var versusStyle: String?
if let i = arguments.firstIndex(of: "--style"), i + 1 < arguments.count {
    style = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
if let i = arguments.firstIndex(of: "--versus-style"), i + 1 < arguments.count {
    versusStyle = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
guard styles.contains(style), versusStyle.map(styles.contains) ?? true else {
    HTTPBench.die("--style and --versus-style take \(styles.joined(separator: ", "))")
}
if versus != nil && versusStyle != nil { HTTPBench.die("--versus and --versus-style do not go together") }
// `--print-phases` (with `--versus`): also prints every phase boundary, in CLOCK_MONOTONIC
// nanoseconds, so that `Scripts/profile-pipeline` can split a profile's samples by phase.
let printsPhases = arguments.contains("--print-phases")
arguments.removeAll { $0 == "--print-phases" }
// `--cache-storage memory|disk|sqlite` keeps the cache's entries in that `CacheStorage`
// (in a new temporary directory) instead of the interceptor's own memory.
let cacheStorage: String = {
    guard let i = arguments.firstIndex(of: "--cache-storage"), i + 1 < arguments.count else { return "builtIn" }
    defer { arguments.removeSubrange(i...(i + 1)) }
    return arguments[i + 1]
}()
nonisolated func makeCache() -> CacheInterceptor {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-bench-cache-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    switch cacheStorage {
    case "builtIn": return CacheInterceptor(ttl: 300, maxEntries: 100)
    case "memory": return CacheInterceptor(storage: MemoryCacheStorage(maxEntries: 100), ttl: 300)
    case "disk":
        return CacheInterceptor(storage: DiskCacheStorage(directory: directory.appendingPathComponent("records"),
                                                          limits: DiskCacheLimits(maxEntries: 100)), ttl: 300)
    case "sqlite":
        do {
            return CacheInterceptor(storage: try SQLiteCacheStorage(path: directory.appendingPathComponent("cache.sqlite").path,
                                                                    maxEntries: 100), ttl: 300)
        } catch { HTTPBench.die("\(error)") }
    default: HTTPBench.die("--cache-storage takes builtIn, memory, disk or sqlite")
    }
}
let names = ["auth", "retry", "rateLimit", "cache", "encryption", "logging", "metrics"]
// `--pipeline auth,cache` keeps several of the seven (in the recommended order).
func interceptors(for pipeline: String) -> [any Interceptor] {
    let kept = pipeline.split(separator: ",").map(String.init)
    guard pipeline == "none" || pipeline == "seven" || kept.allSatisfy(names.contains) else {
        HTTPBench.die("--pipeline and --versus take none, seven, or some of \(names.joined(separator: ", ")) separated by commas")
    }
    return pipeline == "none" ? [] : sevenInterceptors().filter { pipeline == "seven" || kept.contains($0.name) }
}
let options = HTTPBenchOptions.parse(arguments)

func sevenInterceptors() -> [any Interceptor] {
    let dropping = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    return [
        AuthInterceptor(tokenProvider: { "bench-token" }),
        RetryInterceptor(maxRetries: 3),
        RateLimitInterceptor(maxRequests: 1_000_000_000, perInterval: 1, maxWait: 1),
        makeCache(),
        EncryptionInterceptor(provider: AESGCMEncryptionProvider(key: SymmetricKey(size: .bits256)),
                              encryptRequest: true, decryptResponse: false),
        LoggingInterceptor(logger: SwiftLogFiberLogger(logger: dropping)),
        MetricsInterceptor(collector: SwiftMetricsCollector()),
    ]
}

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
configuration.maxConnectionsPerHost = options.concurrency
let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
func client(_ pipeline: String) -> Fiber {
    Fiber(options.url) {
        $0.transport = canned ? CannedTransport(loop: group.loops[0]) as any FiberTransport : transport
        // `--pipeline auth` (…) keeps one of the seven, to see what each costs.
        $0.interceptors = interceptors(for: pipeline)
    }
}
let fibers = [client(pipeline)] + (versus.map { [client($0)] } ?? []) + (versusStyle.map { _ in [client(pipeline)] } ?? [])
let clientStyles = [style] + (versusStyle.map { [$0] } ?? [])

/// One request made in `style`: the response's status and body size.
@Sendable func call(_ fiber: Fiber, _ request: FiberRequest, style: String) async throws -> (Int, Int) {
    switch style {
    case "completion":
        let response = await withCheckedContinuation { continuation in
            fiber.send(request, as: Data.self) { continuation.resume(returning: $0) }
        }
        let data = try response.get()
        return (response.statusCode ?? 0, data.count)
    case "chain":
        let response = await fiber.chain(request).responseData()
        let data = try response.get()
        return (response.statusCode ?? 0, data.count)
    default:
        let response = try await fiber.send(request)
        return (response.statusCode, response.data.count)
    }
}
let phases = InterleavedPhases(clients: fibers.count)
let counter = Atomic<Int>(0)
let base = FiberRequest(url: options.url)

let label = "fiber-\(pipeline)\(style == "async" ? "" : "-\(style)")\(versus.map { "-versus-\($0)" } ?? "")"
    + (versusStyle.map { "-versus-\($0)" } ?? "")
let bench = HTTPBench(client: label, options: options, executor: group.loops[0]) {
    let n = counter.wrappingAdd(1, ordering: .relaxed).oldValue
    let phase = phases.current
    let index = phases.client(of: phase)
    let (status, bytes) = try await call(fibers[index], base.query("n", String(n)), style: clientStyles[min(index, clientStyles.count - 1)])
    guard status == 200 else { throw PipelineBenchError.status(status) }
    phases.complete(phase)
    return bytes
}
// CPU time per request (user + system, the whole process, every request the run sent):
// on a shared machine it moves far less than requests per second, which another
// process's load on the client's CPU bends at will.
func cpuMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ t: timeval) -> Double { Double(t.tv_sec) * 1e6 + Double(t.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}
let cpuBefore = cpuMicroseconds()
let turns = versus == nil && versusStyle == nil ? nil : Task.detached { await phases.alternate(every: .milliseconds(phaseMilliseconds)) }
await bench.run()
phases.stop()
let sent = counter.load(ordering: .relaxed)
if let versus = versus ?? versusStyle, let boundaries = await turns?.value {
    if printsPhases { print("PIPELINE_PHASES " + boundaries.map { String($0.wallNanoseconds) }.joined(separator: " ")) }
    // The timed run: after the warm-up, for `seconds` (the controller started with the warm-up).
    let measured = options.warmup...(options.warmup + options.seconds)
    let a = versusStyle == nil ? pipeline : style
    print("PIPELINE_INTERLEAVED " + phases.summary(boundaries, a: a, b: versus, measured: measured))
} else {
    print("PIPELINE_CPU {\"client\":\"fiber-\(pipeline)\",\"concurrency\":\(options.concurrency),"
          + "\"requests\":\(sent),\"cpu_us_per_request\":\((cpuMicroseconds() - cpuBefore) / Double(max(sent, 1)))}")
}

await transport.shutdown()
do {
    try await group.shutdown()
} catch {
    print("warning: shutting down: \(error)")
}

enum PipelineBenchError: Error { case status(Int) }

/// What nginx answers the benchmark's GETs (`--canned`), on the event loop the real
/// transport would use, without a socket.
struct CannedTransport: FiberTransport {
    let loop: EventLoop
    private static let body = Data("Hello, world!".utf8)
    private static let headers: HTTPHeaders = [
        "Server": "nginx/1.22.1", "Date": "Sun, 22 Nov 2026 15:04:40 GMT", "Content-Type": "text/plain",
        "Content-Length": "13", "Connection": "keep-alive",
    ]

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        (Self.body, TransportResponse(statusCode: 200, headers: Self.headers, url: request.url))
    }

    func executorPreference() -> (any TaskExecutor)? { loop }
}
