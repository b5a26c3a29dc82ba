import CBenchSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The load driver of the HTTP/1.1 client benchmark, shared by the Swift
// clients (`AHCBench`, `FiberHTTPBench`). `Scripts/bench-http` runs each client
// once per concurrency against a local nginx; a run is:
//
//   1. one checked request (status 200, body size), so a broken client fails loudly;
//   2. a warm-up: `concurrency` loops for `--warmup` seconds, not timed, which opens
//      the connections;
//   3. the timed run: the same loops until `--seconds` passed or `--max-requests`
//      requests were sent in all, whichever comes first, timing every request;
//   4. with `--alloc-requests N`: a separate run of N requests one after the other
//      (concurrency 1) while the malloc interposer of `CBenchSupport` counts;
//   5. one line `BENCH_RESULT {json}` on stdout, which the script collects.
//
// Every loop is bounded in count and in time, and a watchdog ends the process if a
// run hangs. Nothing asserts on a time.

/// The command-line options every Swift client takes.
public struct HTTPBenchOptions: Sendable {
    public var url = ""
    public var concurrency = 1
    public var seconds = 5.0
    public var warmup = 0.5
    public var maxRequests = 2_000_000
    public var allocRequests = 0
    /// The body size every response must have; nil: any size.
    public var expectBytes: Int?
    /// TLS (`Scripts/bench-tls`): a PEM file of the CA certificates to trust for
    /// an https URL; nil: the client's default trust store.
    public var caFile: String?
    /// Every request on a new connection: the client sends `Connection: close`
    /// (a TLS handshake per request with an https URL).
    public var newConnectionPerRequest = false
    /// No TLS session resumption: every handshake is a full one.
    public var noResumption = false
    /// Stream the body and discard it as it arrives, counting its bytes, rather than
    /// collecting it (the bulk download of `Scripts/bench-tls`).
    public var streamBody = false
    /// Send through the `Fiber` API that users call (`Fiber(origin).get(path)`, no
    /// interceptors, the default configuration over the same runtime client) rather
    /// than the runtime's `HTTPClient` under it.
    public var throughFiberAPI = false
    /// HTTP/2 (`Scripts/bench-h2`): the connections the `concurrency` loops share as streams.
    public var connections = 1

    public static let usage = """
    options:
      --url URL              the URL to GET (http://127.0.0.1:PORT/)
      --concurrency C        concurrent request loops, and connections (default 1)
      --seconds S            length of the timed run (default 5)
      --warmup S             untimed warm-up before it, same loops (default 0.5)
      --max-requests N       stop the timed run after N requests in all (default 2,000,000)
      --alloc-requests N     afterwards, count allocations over N sequential requests (default 0: skip)
      --expect-bytes N       count a response whose body is not N bytes as an error
      --ca PATH              trust the CA certificates in this PEM file (https URLs)
      --new-connection       send `Connection: close`: every request on a new connection
      --no-resumption        no TLS session resumption: every handshake a full one
      --stream               stream the body and discard it, counting its bytes
      --api                  send through the Fiber API (Fiber(origin).get(path)) over the same client
      --connections N        HTTP/2: the loops share N connections as streams (default 1)
    """

    public static func parse(_ arguments: [String]) -> HTTPBenchOptions {
        var options = HTTPBenchOptions()
        var rest = arguments[...]
        func fail(_ message: String) -> Never {
            print("error: \(message)\n\n\(usage)")
            exit(2)
        }
        func value(_ name: String) -> String {
            guard let v = rest.popFirst() else { fail("\(name) needs a value") }
            return v
        }
        func int(_ name: String, _ range: ClosedRange<Int>) -> Int {
            guard let n = Int(value(name)), range.contains(n) else { fail("\(name) takes an integer in \(range)") }
            return n
        }
        func seconds(_ name: String) -> Double {
            guard let s = Double(value(name)), s >= 0, s <= 600 else { fail("\(name) takes seconds in [0, 600]") }
            return s
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage)
                exit(0)
            case "--url": options.url = value(argument)
            case "--concurrency": options.concurrency = int(argument, 1...4096)
            case "--seconds": options.seconds = seconds(argument)
            case "--warmup": options.warmup = seconds(argument)
            case "--max-requests": options.maxRequests = int(argument, 1...1_000_000_000)
            case "--alloc-requests": options.allocRequests = int(argument, 0...10_000_000)
            case "--expect-bytes": options.expectBytes = int(argument, 0...1_000_000_000)
            case "--ca": options.caFile = value(argument)
            case "--new-connection": options.newConnectionPerRequest = true
            case "--no-resumption": options.noResumption = true
            case "--stream": options.streamBody = true
            case "--api": options.throughFiberAPI = true
            case "--connections": options.connections = int(argument, 1...64)
            default: fail("unknown argument \(argument)")
            }
        }
        guard options.url.hasPrefix("http://") || options.url.hasPrefix("https://") else {
            fail("--url http(s)://HOST:PORT/PATH is required")
        }
        return options
    }
}

/// What one request loop did.
struct LoopResult: Sendable {
    var requests = 0
    var errors = 0
    var firstError: String?
    /// Latencies in nanoseconds, when recorded.
    var latencies: [Int] = []
}

/// Requests left to send in all loops together.
final class RequestBudget: Sendable {
    private let remaining: Atomic<Int>
    init(_ count: Int) { remaining = Atomic(count) }
    /// Takes one request from the budget; false when it is spent.
    func take() -> Bool { remaining.subtract(1, ordering: .relaxed).newValue >= 0 }
}

/// The benchmark of one client: `request` sends one GET and returns the size of the
/// body it read in full, throwing on a transport error or a status other than 200.
public struct HTTPBench: Sendable {
    public typealias Request = @Sendable () async throws -> Int

    public let client: String
    public let options: HTTPBenchOptions
    /// The executor the request loops prefer (`Task(executorPreference:)`); nil: the global pool.
    public let executor: (any TaskExecutor)?
    public let request: Request

    public init(client: String, options: HTTPBenchOptions, executor: (any TaskExecutor)?, request: @escaping Request) {
        self.client = client
        self.options = options
        self.executor = executor
        self.request = request
    }

    private static let clock = ContinuousClock()

    /// Runs the whole benchmark and prints its `BENCH_RESULT` line; exits the process on a failure.
    public func run() async {
        let o = options
        // The watchdog: a hang in a client must not hang the script.
        let limit = o.warmup + o.seconds + 60 + Double(o.allocRequests) / 100
        Self.startWatchdog(seconds: limit, what: "\(client) at concurrency \(o.concurrency)")

        // 1. One checked request.
        do {
            let bytes = try await onExecutor { try await self.request() }
            if let expected = o.expectBytes, bytes != expected {
                Self.die("\(client): the first response had \(bytes) body bytes, expected \(expected)")
            }
        } catch {
            Self.die("\(client): the first request failed: \(error)")
        }

        // 2. Warm-up, 3. the timed run.
        if o.warmup > 0 {
            _ = await runLoops(seconds: o.warmup, maxRequests: o.maxRequests, record: false)
        }
        let start = Self.clock.now
        let loops = await runLoops(seconds: o.seconds, maxRequests: o.maxRequests, record: true)
        let elapsed = (Self.clock.now - start)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let requests = loops.reduce(0) { $0 + $1.requests }
        let errors = loops.reduce(0) { $0 + $1.errors }
        let latencies = loops.flatMap(\.latencies).sorted()
        if let first = loops.lazy.compactMap(\.firstError).first {
            print("warning: \(client): \(errors) request(s) failed; the first: \(first)")
        }

        // 4. Allocations over sequential requests.
        var allocations: (perRequest: Double, bytesPerRequest: Double)?
        if o.allocRequests > 0 {
            if AllocationCounter.works {
                allocations = await countAllocations(requests: o.allocRequests)
            } else {
                print("warning: the malloc interposer does not see the Swift runtime's allocations; not counting")
            }
        }

        // 5. The result line.
        func number(_ v: Double?) -> String {
            guard let v, v.isFinite else { return "null" }
            return "\((v * 1000).rounded() / 1000)"
        }
        func percentileMicros(_ p: Double) -> Double? {
            guard !latencies.isEmpty else { return nil }
            let rank = Int((p / 100 * Double(latencies.count)).rounded(.up))
            return Double(latencies[min(max(rank, 1), latencies.count) - 1]) / 1000
        }
        let fields = [
            "\"client\":\"\(client)\"",
            "\"concurrency\":\(o.concurrency)",
            "\"requests\":\(requests)",
            "\"errors\":\(errors)",
            "\"seconds\":\(number(seconds))",
            "\"rps\":\(number(seconds > 0 ? Double(requests) / seconds : nil))",
            "\"p50_us\":\(number(percentileMicros(50)))",
            "\"p99_us\":\(number(percentileMicros(99)))",
            "\"alloc_per_request\":\(number(allocations?.perRequest))",
            "\"alloc_bytes_per_request\":\(number(allocations?.bytesPerRequest))",
            "\"alloc_requests\":\(allocations == nil ? 0 : o.allocRequests)",
        ]
        print("BENCH_RESULT {\(fields.joined(separator: ","))}")
        fflush(nil)
    }

    /// Runs `operation` in a task preferring `executor`, as the request loops do.
    private func onExecutor<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task(executorPreference: executor) { try await operation() }.value
    }

    /// `concurrency` loops in tasks created with `Task(executorPreference: executor)`,
    /// each sending one request after the other until the deadline or the shared budget.
    private func runLoops(seconds: Double, maxRequests: Int, record: Bool) async -> [LoopResult] {
        let deadline = Self.clock.now + .nanoseconds(Int64(seconds * 1e9))
        let budget = RequestBudget(maxRequests)
        let perLoopCapacity = record ? min(maxRequests / options.concurrency + 1, 1 << 20) : 0
        let request = self.request
        let expectBytes = options.expectBytes
        let tasks = (0..<options.concurrency).map { _ in
            Task(executorPreference: executor) { () async -> LoopResult in
                var result = LoopResult()
                result.latencies.reserveCapacity(perLoopCapacity)
                while budget.take() {
                    let sent = Self.clock.now
                    do {
                        let bytes = try await request()
                        if let expectBytes, bytes != expectBytes {
                            throw BenchError("a body of \(bytes) bytes, expected \(expectBytes)")
                        }
                        let now = Self.clock.now
                        if record { result.latencies.append(Self.nanoseconds(now - sent)) }
                        result.requests += 1
                        if now >= deadline { break }
                    } catch {
                        result.errors += 1
                        if result.firstError == nil { result.firstError = "\(error)" }
                        // A failing client must not spin: give up on this loop after a few errors.
                        if result.errors >= 10 || Self.clock.now >= deadline { break }
                    }
                }
                return result
            }
        }
        var results: [LoopResult] = []
        for task in tasks { results.append(await task.value) }
        return results
    }

    /// Counts allocations in the whole process over `requests` sequential requests,
    /// after 100 uncounted ones.
    private func countAllocations(requests: Int) async -> (Double, Double)? {
        let request = self.request
        let counted: (UInt64, UInt64, Int)? = try? await onExecutor {
            for _ in 0..<100 { _ = try await request() }
            AllocationCounter.start()
            for _ in 0..<requests { _ = try await request() }
            let counts = AllocationCounter.stop()
            return (counts.allocations, counts.bytes, requests)
        }
        _ = AllocationCounter.stop()
        guard let (allocations, bytes, n) = counted else {
            print("warning: \(client): a request failed while counting allocations")
            return nil
        }
        return (Double(allocations) / Double(n), Double(bytes) / Double(n))
    }

    private static func nanoseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s) * 1_000_000_000 + Int(atto / 1_000_000_000)
    }

    /// Ends the process after `seconds` unless it ended before; a plain thread, so
    /// it fires even when every executor is stuck.
    public static func startWatchdog(seconds: Double, what: String) {
        let message = "error: \(what) did not finish within \(Int(seconds)) s; giving up\n"
        let box = Unmanaged.passRetained(WatchdogBox(seconds: seconds, message: message)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let box = Unmanaged<WatchdogBox>.fromOpaque(arg!).takeRetainedValue()
            var left = UInt32(box.seconds.rounded(.up))
            while left > 0 { left = sleep(left) }
            box.message.utf8CString.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count - 1) }
            _exit(3)
        }, box)
        if rc == 0 { pthread_detach(thread) }
    }

    private final class WatchdogBox {
        let seconds: Double
        let message: String
        init(seconds: Double, message: String) {
            self.seconds = seconds
            self.message = message
        }
    }

    public static func die(_ message: String) -> Never {
        print("error: \(message)")
        fflush(nil)
        exit(1)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
