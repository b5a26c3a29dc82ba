@testable import Fiber
import FiberTesting
import Foundation
import Testing

@Suite struct TokenBucketTests {
    @Test func burstThenWaitsInOrder() {
        var bucket = TokenBucket(capacity: 2, interval: .seconds(2), now: .zero)  // one token a second
        #expect(bucket.take(now: .zero, maxWait: .zero) == .proceed)
        #expect(bucket.take(now: .zero, maxWait: .zero) == .proceed)
        #expect(bucket.take(now: .zero, maxWait: .zero) == .exceeded)
        #expect(bucket.take(now: .zero, maxWait: .seconds(10)) == .wait(.seconds(1)))
        #expect(bucket.take(now: .zero, maxWait: .seconds(10)) == .wait(.seconds(2)))
        #expect(bucket.take(now: .zero, maxWait: .seconds(2)) == .exceeded)
    }

    @Test func refillsContinuouslyUpToCapacity() {
        var bucket = TokenBucket(capacity: 60, interval: .seconds(60), now: .zero)
        for _ in 0..<60 { #expect(bucket.take(now: .zero, maxWait: .zero) == .proceed) }
        #expect(bucket.take(now: .milliseconds(500), maxWait: .zero) == .exceeded)
        #expect(bucket.take(now: .seconds(1), maxWait: .zero) == .proceed)
        var idle = TokenBucket(capacity: 3, interval: .seconds(3), now: .zero)
        for _ in 0..<3 { _ = idle.take(now: .zero, maxWait: .zero) }
        _ = idle.take(now: .seconds(1000), maxWait: .zero)
        #expect(idle.tokens == 2)  // capped at capacity before the take
    }

    @Test func giveBackReturnsAReservation() {
        var bucket = TokenBucket(capacity: 1, interval: .seconds(1), now: .zero)
        _ = bucket.take(now: .zero, maxWait: .zero)
        #expect(bucket.take(now: .zero, maxWait: .seconds(5)) == .wait(.seconds(1)))
        bucket.giveBack(now: .zero)
        #expect(bucket.take(now: .zero, maxWait: .seconds(5)) == .wait(.seconds(1)))
    }
}

@Suite struct RateLimitInterceptorTests {
    @Test func waitsForASlotThenThrowsPastMaxWait() async throws {
        // Time stands still: each sleep is recorded, none moves the clock.
        let sleeps = Counter()
        let frozen = FiberClock(now: { .zero }, sleep: { _, _ in sleeps.increment() })
        let rateLimit = RateLimitInterceptor(maxRequests: 2, perInterval: 1, maxWait: 0.6, clock: frozen)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        try await fiber.get("/1")
        try await fiber.get("/2")
        try await fiber.get("/3")  // reserves the slot due in 0.5 s, and waits for it
        #expect(sleeps.count == 1)
        do {
            try await fiber.get("/4")  // the next slot is 1 s away: more than maxWait
            Issue.record("expected RateLimitError")
        } catch let error as RateLimitError {
            // RateLimitError.exceeded(limit: 2, interval: 1.0)
            #expect(error == .exceeded(limit: 2, interval: 1.0))
            #expect("\(error)" == "rate limit of 2 requests per 1.0s exceeded")
        }
        #expect(mock.requests.count == 3 && sleeps.count == 1)
    }

    @Test func virtualTimeRefillsBetweenWaits() async throws {
        let clock = TestClock()
        let rateLimit = RateLimitInterceptor(maxRequests: 2, perInterval: 1, maxWait: 0.6, clock: clock.fiberClock)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        for i in 0..<6 { try await fiber.get("/\(i)") }
        #expect(clock.sleeps == Array(repeating: .seconds(0.5), count: 4))
        #expect(clock.now == .seconds(2))
    }

    @Test func sleepToleranceComesFromDefaults() async throws {
        let tolerances = Counter()
        let clock = FiberClock(now: { .zero }, sleep: { _, tolerance in
            if tolerance == .seconds(0.2) { tolerances.increment() }
        })
        let rateLimit = RateLimitInterceptor(maxRequests: 1, perInterval: 10, maxWait: 60,
                                             defaults: FiberDefaults(rateLimitSleepIncrement: 0.2), clock: clock)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        try await fiber.get("/")
        try await fiber.get("/")
        #expect(tolerances.count == 1)
    }

    @Test func neverWaitsPastTheDeadline() async throws {
        let clock = TestClock()
        let rateLimit = RateLimitInterceptor(maxRequests: 1, perInterval: 60, maxWait: 30, clock: clock.fiberClock)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        try await fiber.get("/")
        await #expect(throws: RateLimitError.self) {
            try await fiber.send(FiberRequest(url: "https://api.example.com/").timeout(5))
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test func cancelledWaiterGivesItsSlotBack() async throws {
        let rateLimit = RateLimitInterceptor(maxRequests: 1, perInterval: 3600, maxWait: 3600)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        try await fiber.get("/")
        let waiting = Task { try await fiber.get("/") }
        waiting.cancel()
        await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await waiting.value }
        #expect(mock.requests.count == 1)
    }

    /// 1,000 concurrent requests against a limit of 100 with no waiting: exactly 100 pass.
    @Test func concurrentRequestsShareOneBucket() async throws {
        let clock = TestClock()
        let rateLimit = RateLimitInterceptor(maxRequests: 100, perInterval: 60, maxWait: 0, clock: clock.fiberClock)
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        let (passed, limited) = await withTaskGroup(of: Bool?.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    do { return try await fiber.get("/").isSuccess } catch is RateLimitError { return nil } catch { return false }
                }
            }
            return await group.reduce(into: (0, 0)) { counts, result in
                if result == true { counts.0 += 1 } else if result == nil { counts.1 += 1 }
            }
        }
        #expect(passed == 100 && limited == 900)
        #expect(mock.requests.count == 100)
    }
}
