@testable import Fiber
import FiberSQLite
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The core `CacheInterceptor` honours RFC 9111: what the server says about
/// freshness, storing, revalidation and variants wins over the TTL.
@Suite struct CacheInterceptorHTTPTests {
    static func stub(_ body: String, _ headers: HTTPHeaders, status: Int = 200) -> StubResponse {
        StubResponse(statusCode: status, headers: headers, body: Data(body.utf8))
    }

    @Test(arguments: CacheStorageKind.allCases) func maxAgeOverridesTheTTLAndAgeIsReported(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let cache = try kind.cache(ttl: 300, clock: clock.fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        let calls = Counter()
        mock.stub { _ in Self.stub("v\(calls.increment())", ["Cache-Control": "max-age=10"]) }
        _ = try await fiber.get("/a")
        clock.advance(by: .seconds(4))
        let hit = try await fiber.get("/a")
        #expect(hit.text == "v1" && hit.header("Age") == "4")
        clock.advance(by: .seconds(7))
        let refetched = try await fiber.get("/a")
        #expect(refetched.text == "v2")
        #expect(mock.requests.count == 2)
    }

    /// Wall-clock times are counted from the cache's creation, not from the clock's zero:
    /// a cache made an hour after the process's monotonic clock started (as `.continuous`'s
    /// zero is the first use in the process) still judges a `Date`-stamped response fresh.
    @Test(arguments: CacheStorageKind.allCases) func aClockThatStartedLongBeforeTheCacheGivesTrueAges(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        clock.advance(by: .seconds(3600))
        let cache = try kind.cache(ttl: 300, clock: clock.fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        let calls = Counter()
        mock.stub { _ in
            Self.stub("v\(calls.increment())", ["Cache-Control": "max-age=60", "Date": imfFixdate(Int(Date().timeIntervalSince1970))])
        }
        _ = try await fiber.get("/a")
        clock.advance(by: .seconds(5))
        let hit = try await fiber.get("/a")
        #expect(hit.text == "v1")
        #expect((5...6).contains(Int(hit.header("Age") ?? "") ?? -1), "Age \(hit.header("Age") ?? "none")")
        #expect(mock.requests.count == 1)
    }

    @Test(arguments: CacheStorageKind.allCases) func noStoreAndNoCacheAreHonoured(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(ttl: 300, clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        let calls = Counter()
        mock.stub { request in
            let n = calls.increment()
            return request.url?.path == "/secret" ? Self.stub("s\(n)", ["Cache-Control": "no-store"])
                : Self.stub("n\(n)", ["Cache-Control": "no-cache", "ETag": "\"e1\""])
        }
        _ = try await fiber.get("/secret")
        _ = try await fiber.get("/secret")
        let stored = await cache.count
        #expect(mock.requests.count == 2 && stored == 0)
        // no-cache: stored, but every use is revalidated.
        _ = try await fiber.get("/nc")
        _ = try await fiber.get("/nc")
        #expect(mock.requests.count == 4)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == "\"e1\"")
    }

    @Test(arguments: CacheStorageKind.allCases) func expiredEntryIsRevalidatedAnd304KeepsTheBody(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let cache = try kind.cache(ttl: 300, clock: clock.fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stub { request in
            request.value(forHTTPHeaderField: "If-None-Match") == "\"v1\""
                ? Self.stub("", ["Cache-Control": "max-age=60", "X-Checked": "yes"], status: 304)
                : Self.stub("body", ["Cache-Control": "max-age=60", "ETag": "\"v1\"", "X-Checked": "no"])
        }
        _ = try await fiber.get("/doc")
        clock.advance(by: .seconds(61))
        let revalidated = try await fiber.get("/doc")
        #expect(revalidated.statusCode == 200 && revalidated.text == "body")
        #expect(revalidated.header("X-Checked") == "yes", "the 304's headers update the stored ones")
        #expect(mock.requests.count == 2)
        // Fresh again for another minute.
        clock.advance(by: .seconds(30))
        let fresh = try await fiber.get("/doc")
        #expect(fresh.text == "body")
        #expect(mock.requests.count == 2)
    }

    @Test(arguments: CacheStorageKind.allCases) func requestNoCacheForcesRevalidation(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(ttl: 300, clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stub { _ in Self.stub("x", ["ETag": "\"1\""]) }
        _ = try await fiber.get("/r")
        _ = try await fiber.get("/r", headers: ["Cache-Control": "no-cache"])
        #expect(mock.requests.count == 2)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == "\"1\"")
    }

    @Test(arguments: CacheStorageKind.allCases) func varyKeepsVariantsApart(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(ttl: 300, clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stub { request in
            request.url?.path == "/star" ? Self.stub("any", ["Vary": "*"])
                : Self.stub(request.value(forHTTPHeaderField: "Accept-Language") ?? "none", ["Vary": "Accept-Language"])
        }
        #expect(try await fiber.get("/v", headers: ["Accept-Language": "fr"]).text == "fr")
        #expect(try await fiber.get("/v", headers: ["Accept-Language": "fr"]).text == "fr")
        #expect(mock.requests.count == 1)
        #expect(try await fiber.get("/v", headers: ["Accept-Language": "de"]).text == "de")
        #expect(mock.requests.count == 2)
        _ = try await fiber.get("/star")
        _ = try await fiber.get("/star")
        #expect(mock.requests.count == 4, "Vary: * is never served from the cache")
    }

    @Test(arguments: CacheStorageKind.allCases) func staleWhileRevalidateAnswersAtOnceAndRefreshesOnce(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let cache = try kind.cache(ttl: 300, clock: clock.fiberClock, in: directory)
        // The refresh is held until every stale answer is in: they must not wait for it
        // (and, answered at once, it would race them to the store).
        let transport = HeldRefreshTransport(refresh: Gate())
        let fiber = Fiber(baseURL: apiURL, interceptors: [cache], transport: transport)
        _ = try await fiber.get("/swr")
        clock.advance(by: .seconds(20))
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await fiber.get("/swr").text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0 == "v1" }, "stale answers at once")
        try await waitUntil { transport.calls.count == 2 }
        await transport.refresh.open()
        try await waitUntil { (try? await fiber.get("/swr").text) == "v2" }
        #expect(transport.calls.count == 2, "one background refresh for twenty stale hits")
    }

    @Test(arguments: CacheStorageKind.allCases) func revalidationAgainstTheRealServer(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(clock: .continuous, in: directory)
        try await withLiveServer { server, transport in
            server.route("/etag") { request in
                request.header("If-None-Match") == "\"abc\""
                    ? TestResponse(status: 304, headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=0"])
                    : TestResponse(status: 200, headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=0"], body: .bytes(Array("payload".utf8)))
            }
            let fiber = Fiber(baseURL: URL(string: server.baseURL)!, interceptors: [cache], transport: transport)
            #expect(try await fiber.get("/etag").text == "payload")
            let second = try await fiber.get("/etag")
            #expect(second.statusCode == 200 && second.text == "payload")
            let requests = server.recordedRequests()
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"abc\"")
        }
    }
}

/// Answers `v1` at once, then holds every later request (the background refresh)
/// until `refresh` opens; responses are fresh for 10 s and stale for 60 more.
private struct HeldRefreshTransport: FiberTransport {
    let refresh: Gate
    let calls = Counter()

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        let call = calls.increment()
        if call > 1 { await refresh.wait() }
        return (Data("v\(call)".utf8),
                TransportResponse(statusCode: 200, headers: ["Cache-Control": "max-age=10, stale-while-revalidate=60"],
                                  url: request.url))
    }
}
