import Crypto
@testable import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Logging
import Metrics
import MetricsTestKit
import Synchronization
import Testing

// The fast paths that make the built-in interceptors cheap (issue 5) must give
// the answers of the general code they skip: each is checked against it here.

@Suite struct HTTPDateFastPathTests {
    @Test func readsIMFFixdates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.fixedLayout("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("0") == nil)
    }

    /// Every input the fixed layout reads, the lenient reading reads the same; the
    /// inputs it leaves (other spacing, out-of-range fields) get the lenient answer.
    @Test func agreesWithTheLenientReading() {
        var inputs = [
            "Sun, 06 Nov 1994 08:49:37 GMT", "sun, 06 nov 1994 08:49:37 GMT", "SUN, 06 NOV 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT", " Sun, 06 Nov 1994 08:49:37 GMT ", "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 gmt", "123, 06 Nov 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 23:60:00 GMT", "Sun, 06 Nov 1994 23:59:60 GMT", "Sun, 06 Nov 1994 23:59:61 GMT",
            "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37:00 GMT", "Sun, 06 Nov 1994 08-49-37 GMT", "Sun,\t06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT\u{A0}", "Sun, 06 Nov 1994 08:49:37 GMTX", "", "Sunday, 06-Nov-94 08:49:37 GMT",
        ]
        // Every one-byte change of a valid date.
        inputs += everyOneByteChange(of: "Sun, 06 Nov 1994 08:49:37 GMT", using: "0123456789 :,-ADGMNTSuvnox\t\u{7F}")
        // Every month, in every case, and a near miss of each.
        for month in ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] {
            for spelling in [month, month.uppercased(), month.lowercased()] {
                #expect(HTTPDate.fixedLayout("Sun, 06 \(spelling) 1994 08:49:37 GMT") != nil, "\(spelling)")
                inputs.append("Sun, 06 \(spelling) 1994 08:49:37 GMT")
            }
            #expect(HTTPDate.fixedLayout("Sun, 06 \(month.dropLast())q 1994 08:49:37 GMT") == nil)
        }
        for seconds in stride(from: -5_000_000_000, to: 5_000_000_000, by: 123_456_789) {
            inputs.append(imfFixdate(seconds))
        }
        for input in inputs {
            #expect(HTTPDate.parse(input) == HTTPDate.lenient(input), "\(input)")
            if let fixed = HTTPDate.fixedLayout(input) { #expect(fixed == HTTPDate.lenient(input), "\(input)") }
        }
        #expect(inputs.filter { HTTPDate.fixedLayout($0) != nil }.count > 100)
    }
}

@Suite struct FieldTextTests {
    @Test func trimsAsFoundationDoes() {
        let inputs = [
            "", " ", "\t", "  max-age=60  ", "\tno-cache\t", "x", " x y ", "\"quoted\"", " \"q\" ", "\"\"", "\"",
            "\u{A0}max-age\u{A0}", "max-age\u{2003}", "\u{3000}x", "é ", " ü", "\r\n", " \r\n x \r\n ", "a\u{301} ",
        ]
        for input in inputs {
            let text = Substring(input)
            #expect(String(FieldText.trimmingWhitespace(text)) == input.trimmingCharacters(in: .whitespaces), "\(input)")
            #expect(String(FieldText.trimmingQuotes(text)) == input.trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
                    "\(input)")
        }
    }

    @Test func cacheControlReadsOneOrManyFields() {
        #expect(CacheControl(headers: [:]) == CacheControl())
        #expect(CacheControl(headers: ["Cache-Control": " max-age=60 , public"]) == CacheControl("max-age=60,public"))
        #expect(CacheControl(headers: ["Cache-Control": "max-age=60", "cache-control": "\u{A0}no-store"]).noStore)
        #expect(CacheControl("stale-while-revalidate=\"15\"").staleWhileRevalidate == 15)
    }
}

@Suite struct HeaderLookupTests {
    /// Names match byte for byte or as the same ASCII letter in either case, never
    /// other bytes that differ only in bit 5 (`@`/`` ` ``, `[`/`{`, `Ü`/`ü`).
    @Test func namesMatchByTheASCIICaseRule() {
        let headers = HTTPHeaders([
            ("Date", "a"), ("date", "b"), ("Cache-Control", "max-age=1"), ("ÜMLAUT", "u"), ("ümlaut", "v"),
            ("X-@", "1"), ("X-`", "2"), ("X-[", "3"), ("Authorization", "Bearer x"), ("", "empty"),
        ])
        let expected: [(name: String, values: [String])] = [
            ("date", ["a", "b"]), ("DATE", ["a", "b"]), ("Date", ["a", "b"]),
            ("cache-control", ["max-age=1"]), ("CACHE-CONTROL", ["max-age=1"]),
            ("ümlaut", ["v"]), ("ÜMLAUT", ["u"]), ("Ümlaut", ["u"]),
            ("x-@", ["1"]), ("x-`", ["2"]), ("X-{", []), ("x-[", ["3"]),
            ("authorization", ["Bearer x"]), ("Authorizatio", []), ("missing", []), ("", ["empty"]),
        ]
        for (name, values) in expected {
            #expect(headers.values(name: name) == values, "\(name)")
            #expect(headers.first(name: name) == values.first, "\(name)")
            #expect(headers.contains(name: name) == !values.isEmpty, "\(name)")
        }
        let fields = CacheFields(headers)
        #expect(fields.date == headers.first(name: "Date") && fields.vary == headers.values(name: "Vary"))
        let response = HTTPHeaders([("vary", "Accept"), ("AGE", "5"), ("Age", "6"), ("expires", "0"), ("VARY", "X"),
                                    ("cache-control", "max-age=1"), ("Cache-Control", "public"), ("Expires", "1")])
        let read = CacheFields(response)
        #expect(read.vary == response.values(name: "Vary") && read.varyNames == ["accept", "x"])
        #expect(read.cacheControl == CacheControl(headers: response) && read.cacheControl.maxAge == 1 && read.cacheControl.isPublic)
        #expect(CacheFields(HTTPHeaders([("Vary", "*")])).varyNames == nil && CacheFields(HTTPHeaders()).cacheControl == CacheControl())
        #expect(read.age == response.first(name: "Age") && read.expires == response.first(name: "Expires") && read.date == nil)
        let request = FiberRequest(url: "https://api.example.com/").header("Accept", "a")
        #expect(request.header("accept", "b").headers.values(name: "Accept") == ["b"])  // replaced, any case
        #expect(request.header("X-New", "c").headers.first(name: "x-new") == "c")       // appended
    }
}

@Suite struct TraceIDTests {
    @Test func defaultTraceIDsAreVersion4UUIDs() {
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = RandomID.uuidString()
            let uuid = UUID(uuidString: id)
            #expect(uuid != nil && uuid?.uuidString == id, "\(id)")  // upper-case, 8-4-4-4-12, like Foundation's
            let bytes = uuid.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 4 && bytes[8] >> 6 == 0b10, "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == 2000)
        #expect(UUID(uuidString: FiberDefaults().traceIDGenerator()) != nil)
    }

    @Test func spanIDsAreSixteenHexDigits() {
        #expect(RandomID.hex(0) == "0000000000000000" && RandomID.hex(0xAB) == "00000000000000ab")
        #expect(RandomID.hex(.max) == "ffffffffffffffff")
        let id = RandomID.spanID()
        #expect(id.count == 16 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase } && id != RandomID.hex(0))
        #expect(Span(name: "s").id.count == 16)
    }

    @Test func drawsAreDistinctAcrossTasksAndEveryBitIsUsed() async {
        let draws = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<4 { group.addTask { (0..<5000).map { _ in RandomID.next() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(draws).count == draws.count)
        // 20,000 fair draws set each bit 10,000 ± 71 times (one standard deviation): ± 1,000 is 14 of them.
        for bit in 0..<64 {
            let ones = draws.reduce(0) { $0 + Int($1 >> UInt64(bit) & 1) }
            #expect((9_000...11_000).contains(ones), "bit \(bit) set \(ones) times")
        }
    }

    /// The byte-wise reading of a UUID trace ID gives what the general rule gives.
    @Test func w3cFastPathAgreesWithTheGeneralRule() {
        func general(_ traceID: String) -> String? {
            let hex = traceID.lowercased().filter { $0 != "-" }
            // ASCII hex only: fullwidth digits are hex to `Character`, not to W3C.
            let isHex = hex.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            return hex.utf8.count == 32 && isHex && hex.contains { $0 != "0" } ? hex : nil
        }
        var inputs = [
            "A1B2C3D4-0000-0000-0000-00000000000F", "a1b2c3d4-0000-0000-0000-00000000000f", "a1b2c3d400000000000000000000000f",
            "00000000-0000-0000-0000-000000000000", "A1B2C3D4-0000-0000-0000-00000000000", "A1B2C3D4-0000-0000-0000-00000000000FF",
            "--A1B2C3D4-0000-0000-0000-00000000000F--", "G1B2C3D4-0000-0000-0000-00000000000F", "custom-1", "", "-",
            "Ａ1B2C3D4-0000-0000-0000-00000000000F", "A1B2C3D4 0000-0000-0000-00000000000F",
        ]
        for _ in 0..<200 { inputs.append(RandomID.uuidString()) }
        for input in inputs {
            let fast = TraceParent.hexDigits(of: input)
            if let fast { #expect(fast == general(input), "\(input)") }
            if input.utf8.allSatisfy({ $0 < 0x80 }) { #expect((fast == nil) == (general(input) == nil), "\(input)") }
            if let expected = general(input) { #expect(TraceParent.w3cTraceID(input) == expected, "\(input)") }
            // Written in one string or through the general rule, the value has the same shape and trace ID.
            let value = TraceParent.valueWithNewSpan(traceID: input)
            let parts = value.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.count == 4 && parts[0] == "00" && parts[3] == "00", "\(value)")
            #expect(parts.count == 4 && String(parts[1]) == TraceParent.w3cTraceID(input), "\(input)")
            #expect(parts.count == 4 && parts[2].count == 16 && parts[2].allSatisfy(\.isHexDigit) && parts[2] != "0000000000000000")
        }
        #expect(TraceParent.value(traceID: "A1B2C3D4-0000-0000-0000-00000000000F", spanID: "00000000000000ab")
            == "00-a1b2c3d4" + String(repeating: "0", count: 23) + "f-00000000000000ab-00")
    }
}

@Suite struct MetricHandlesTests {
    /// The metrics of a method and status are made once per factory; failure
    /// counters only once there is a failure.
    @Test func makesMetricObjectsOncePerFactory() {
        let factory = TestMetrics()
        let handles = MetricHandles(label: "api")
        let first = handles.metrics(method: "GET", status: 200, factory: factory)
        let again = handles.metrics(method: "GET", status: 200, factory: factory)
        #expect(first.requests === again.requests && first.duration === again.duration)
        #expect(handles.metrics(method: "GET", status: 404, factory: factory).requests !== first.requests)
        #expect(handles.count == 2)
        #expect(handles.failures(method: "GET", factory: factory) === handles.failures(method: "GET", factory: factory))
        #expect(handles.count == 3)

        // The set found last answers first; alternating keys still get their own sets.
        let notFound = handles.metrics(method: "GET", status: 404, factory: factory).requests
        for (method, status) in [("GET", 200), ("GET", 404), ("POST", 200), ("GET", 200), ("GET", 404)] {
            let requests = handles.metrics(method: method, status: status, factory: factory).requests
            switch (method, status) {
            case ("GET", 200): #expect(requests === first.requests)
            case ("GET", 404): #expect(requests === notFound)
            default: #expect(requests !== first.requests && requests !== notFound)
            }
        }
        #expect(handles.count == 4)

        let other = TestMetrics()
        let othersSet = handles.metrics(method: "GET", status: 200, factory: other).requests
        #expect(othersSet !== first.requests)
        #expect(handles.count == 1)  // another factory starts afresh
        // And back again: afresh, the other factory's last set gone with it.
        let back = handles.metrics(method: "GET", status: 200, factory: factory).requests
        #expect(back !== othersSet && back === first.requests)  // (`TestMetrics` hands out one counter per name)
        #expect(handles.count == 1)
    }

    @Test func cachesABoundedNumber() {
        let factory = TestMetrics()
        let handles = MetricHandles(label: "api")
        for status in 0..<(MetricHandles.limit + 50) { _ = handles.metrics(method: "GET", status: status, factory: factory) }
        #expect(handles.count == MetricHandles.limit)
    }

    /// A factory that is a struct is not cached, and still receives every report.
    @Test func structFactoriesReport() async throws {
        let metrics = TestMetrics()
        let (fiber, mock) = mockFiber([MetricsInterceptor(collector: SwiftMetricsCollector(label: "api",
                                                                                           factory: StructFactory(base: metrics)))])
        mock.stub { $0.url?.path == "/bad" ? .serverError() : .ok(body: "abc") }
        try await fiber.get("/ok")
        try await fiber.get("/ok")
        try await fiber.get("/bad")
        #expect(try metrics.expectCounter("api.requests", [("method", "GET"), ("status", "200")]).totalValue == 2)
        #expect(try metrics.expectCounter("api.failures", [("method", "GET")]).totalValue == 1)
    }

    /// No failure, no failure counter: a backend shows none rather than a zero.
    @Test func noFailureCounterWithoutFailures() async throws {
        let metrics = TestMetrics()
        let (fiber, mock) = mockFiber([MetricsInterceptor(collector: SwiftMetricsCollector(label: "api", factory: metrics))])
        mock.stubAll(.ok())
        try await fiber.get("/ok")
        #expect(throws: (any Error).self) { try metrics.expectCounter("api.failures", [("method", "GET")]) }
    }
}

private struct StructFactory: MetricsFactory {
    let base: TestMetrics
    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        base.makeCounter(label: label, dimensions: dimensions)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        base.makeTimer(label: label, dimensions: dimensions)
    }
    func destroyCounter(_ handler: CounterHandler) { base.destroyCounter(handler) }
    func destroyRecorder(_ handler: RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: TimerHandler) { base.destroyTimer(handler) }
}

@Suite struct CacheKeyTests {
    @Test func keysCompareByMethodURLAndAuthorization() {
        let request = FiberRequest(url: "https://api.example.com/a?b=1")
        let key = CacheInterceptor.key(for: request)
        #expect(key == CacheInterceptor.key(for: request) && key.digest == CacheInterceptor.key(for: request).digest)
        #expect(key != CacheInterceptor.key(for: request.header("Authorization", "Bearer x")))
        #expect(key != CacheInterceptor.key(for: request.method(.head)))
        #expect(key != CacheInterceptor.key(for: FiberRequest(url: "https://api.example.com/a?b=2")))
        #expect(key.digest != CacheInterceptor.key(for: request.header("Authorization", "Bearer x")).digest)
    }

    /// Equal digests hash alike, and a dictionary of many digests finds each and only each.
    @Test func dictionariesFindEveryDigest() {
        let keys = (0..<2_000).map { CacheInterceptor.key(for: FiberRequest(url: "https://api.example.com/item?n=\($0)")).digest }
        #expect(keys[7].hashValue == CacheInterceptor.key(for: FiberRequest(url: "https://api.example.com/item?n=7")).digest.hashValue)
        var index: [CacheDigest: Int] = [:]
        for (i, key) in keys.enumerated() { index[key] = i }
        #expect(index.count == keys.count)
        #expect(keys.indices.allSatisfy { index[keys[$0]] == $0 })
        #expect(index[CacheInterceptor.key(for: FiberRequest(url: "https://api.example.com/item?n=2000")).digest] == nil)
        for key in keys.prefix(1_000) { index[key] = nil }
        #expect(index.count == 1_000 && keys.suffix(1_000).allSatisfy { index[$0] != nil })
    }

    /// The store finds entries by digest alone: two keys with one digest never answer
    /// for each other, and the later one stored takes the slot.
    @Test func keysSharingADigestNeverAnswerForEachOther() {
        let store = CacheStore(maxEntries: 10, rules: HTTPCacheRules(defaultLifetime: 300), clock: .continuous)
        let alice = FiberRequest(url: "https://api.example.com/me").header("Authorization", "Bearer alice")
        let bob = FiberRequest(url: "https://api.example.com/me").header("Authorization", "Bearer bob")
        let digest = CacheDigest(value: 42)
        let aliceKey = CacheKey(method: .get, url: "https://api.example.com/me", authorization: "Bearer alice", digest: digest)
        let bobKey = CacheKey(method: .get, url: "https://api.example.com/me", authorization: "Bearer bob", digest: digest)
        func response(_ text: String, to request: FiberRequest) -> FiberResponse {
            FiberResponse(data: Data(text.utf8), statusCode: 200, headers: [:], request: request, duration: 0, traceID: "t")
        }
        func answer(_ key: CacheKey, _ request: FiberRequest) -> String? {
            if case .fresh(let entry, _) = store.lookup(key, for: request, at: store.instant()) {
                return String(decoding: entry.data, as: UTF8.self)
            }
            return nil
        }
        _ = store.record(response("alice's", to: alice), for: aliceKey, request: alice, requestTime: store.now(), validated: nil)
        #expect(answer(aliceKey, alice) == "alice's")
        #expect(answer(bobKey, bob) == nil)
        _ = store.record(response("bob's", to: bob), for: bobKey, request: bob, requestTime: store.now(), validated: nil)
        #expect(answer(bobKey, bob) == "bob's")
        #expect(answer(aliceKey, alice) == nil)
        #expect(store.count == 1)
    }
}

/// An executor shaped like the runtime's event loop for a task that prefers it:
/// one thread that runs a task's jobs unisolated (`runSynchronously(on:)`), as
/// `EventLoop` does. It counts the jobs it is given.
private final class CountingLoop: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let state = Locked(State())
    private let wakeup = DispatchSemaphore(value: 0)
    let enqueued = Atomic<Int>(0)

    func enqueue(_ job: consuming ExecutorJob) {
        enqueued.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        wakeup.signal()
    }

    func start() {
        Thread { [self] in
            while true {
                wakeup.wait()
                let (jobs, stopped) = state.withLock { state in
                    defer { state.jobs = [] }
                    return (state.jobs, state.stopped)
                }
                for job in jobs {
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
                if stopped { return }
            }
        }.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wakeup.signal()
    }
}

private actor Elsewhere {
    func touch() {}
}

/// Answers every request at once, and asks for its pipeline to run on `loop`.
private struct LoopTransport: FiberTransport {
    let loop: CountingLoop
    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        (Data("ok".utf8), TransportResponse(statusCode: 200, headers: ["Date": "Sun, 06 Nov 1994 08:49:37 GMT"], url: request.url))
    }
    func executorPreference() -> (any TaskExecutor)? { loop }
}

@Suite struct ExecutorTripTests {
    /// The built-ins run on the loop's thread in place: a request through them goes
    /// through the loop's queue no more often than one with no interceptor.
    @Test func builtInsAddNoTripsThroughTheLoop() async throws {
        let loop = CountingLoop()
        loop.start()
        defer { loop.stop() }
        let dropping = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let seven: [any Interceptor] = [
            AuthInterceptor(tokenProvider: { "token" }),
            RetryInterceptor(maxRetries: 3),
            RateLimitInterceptor(maxRequests: 1_000_000, perInterval: 1),
            CacheInterceptor(ttl: 300, maxEntries: 10),
            EncryptionInterceptor(provider: AESGCMEncryptionProvider(key: .init(size: .bits256)), decryptResponse: false),
            LoggingInterceptor(logger: SwiftLogFiberLogger(logger: dropping)),
            MetricsInterceptor(collector: SwiftMetricsCollector(factory: TestMetrics())),
        ]
        let custom = AnyInterceptor("custom") { request, next in try await next(request) }
        let elsewhere = Elsewhere()
        let hopping = AnyInterceptor("hopping") { request, next in
            await elsewhere.touch()  // an actor on Swift's global pool: the task leaves the loop and comes back
            return try await next(request)
        }
        let none = try await trips(through: [], on: loop)
        #expect(try await trips(through: Array(seven.dropFirst()), on: loop) == none)
        // Auth awaits the caller's token provider, a plain async closure: the task prefers
        // the loop, so it runs there in place.
        #expect(try await trips(through: seven, on: loop) == none)
        // A plain async step costs no trip either, the loop running a task's jobs unisolated...
        #expect(try await trips(through: [custom], on: loop) == none)
        // ...and the count does see a step that leaves the loop.
        #expect(try await trips(through: [hopping], on: loop) >= none + 20)
    }

    /// Jobs the loop was given for 20 requests, each with its own URL (the cache stores each).
    private func trips(through interceptors: [any Interceptor], on loop: CountingLoop) async throws -> Int {
        let fiber = Fiber(baseURL: apiURL, interceptors: interceptors, transport: LoopTransport(loop: loop))
        return try await Task(executorPreference: loop) {
            _ = try await fiber.get("/warm-up")
            let before = loop.enqueued.load(ordering: .relaxed)
            for i in 0..<20 { _ = try await fiber.get("/item/\(i)") }
            return loop.enqueued.load(ordering: .relaxed) - before
        }.value
    }
}

@Suite struct DeadlineTests {
    /// The deadline is kept as a reading of the monotonic clock (so a request has a size
    /// known when compiled); what interceptors read is the instant the timeout set.
    @Test func interceptorsSeeTheDeadlineTheTimeoutSet() async throws {
        let seen = Locked<(ContinuousClock.Instant?, Duration?)>((nil, nil))
        let (fiber, _) = mockFiber([AnyInterceptor("look") { request, next in
            seen.withLock { $0 = (request.deadline, request.remainingTime) }
            return try await next(request)
        }])
        let before = ContinuousClock.now
        _ = try await fiber.send(FiberRequest(url: "https://api.example.com/").timeout(60))
        let after = ContinuousClock.now
        let (deadline, remaining) = seen.withLock { $0 }
        let instant = try #require(deadline)
        #expect(instant >= before + .seconds(60) && instant <= after + .seconds(60))
        let left = try #require(remaining)
        #expect(left > .zero && left <= .seconds(60))

        _ = try await fiber.send(FiberRequest(url: "https://api.example.com/"))
        #expect(seen.withLock { $0.0 == nil && $0.1 == nil })
    }
}

@Suite struct InlineChainTests {
    /// Built-ins and custom interceptors in one chain keep their order (the first
    /// outermost), and a custom step may send the rest of the chain a request twice.
    @Test func builtInsAndCustomStepsKeepTheirOrder() async throws {
        let seen = Locked<[String]>([])
        func mark(_ name: String) -> AnyInterceptor {
            AnyInterceptor(name) { request, next in
                seen.withLock { $0.append(name) }
                return try await next(request)
            }
        }
        let twice = AnyInterceptor("twice") { request, next in
            _ = try await next(request.header("X-Attempt", "1"))
            return try await next(request.header("X-Attempt", "2"))
        }
        let (fiber, mock) = mockFiber([mark("a"), AuthInterceptor(tokenProvider: { "t" }), twice, mark("b"),
                                       RetryInterceptor(maxRetries: 1), mark("c")])
        mock.stubAll(.ok())
        let response = try await fiber.get("/x")
        #expect(response.statusCode == 200)
        #expect(seen.withLock { $0 } == ["a", "b", "c", "b", "c"])
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
        #expect(mock.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t" })
    }
}
