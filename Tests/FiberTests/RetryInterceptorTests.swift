@testable import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

@Suite struct BackoffTests {
    let backoff = Backoff(baseDelay: 0.5, maxDelay: 30, multiplier: 2, jitterFraction: 0.25)

    @Test func guideTable() {
        // Attempt 1: 0.5 s (0.375–0.625), 2: 1.0 s (0.75–1.25), 3: 2.0 s (1.5–2.5).
        for (attempt, middle) in [(1, 0.5), (2, 1.0), (3, 2.0)] {
            #expect(backoff.delay(attempt: attempt, unitRandom: 0) == .seconds(middle))
            #expect(backoff.delay(attempt: attempt, unitRandom: -1) == .seconds(middle * 0.75))
            #expect(backoff.delay(attempt: attempt, unitRandom: 1) == .seconds(middle * 1.25))
        }
    }

    @Test func cappedAtMaxDelayBeforeJitter() {
        #expect(backoff.delay(attempt: 20, unitRandom: 0) == .seconds(30))
        #expect(backoff.delay(attempt: 20, unitRandom: 1) == .seconds(37.5))
        #expect(backoff.delay(attempt: 10_000, unitRandom: 0) == .seconds(30))
    }

    @Test func defaultsSetBaseAndJitter() {
        let retry = RetryInterceptor(maxRetries: 3, defaults: FiberDefaults(jitterFraction: 0.5, exponentialBackoffBase: 3.0))
        #expect(retry.backoff.multiplier == 3 && retry.backoff.jitterFraction == 0.5)
        #expect(retry.backoff.delay(attempt: 3, unitRandom: 0) == .seconds(4.5))
    }
}

@Suite struct RetryInterceptorTests {
    func retry(_ clock: TestClock, maxRetries: Int = 3, random: Double = 0, shouldRetry: (@Sendable (any Error) -> Bool)? = nil)
        -> RetryInterceptor {
        RetryInterceptor(maxRetries: maxRetries, shouldRetry: shouldRetry, clock: clock.fiberClock, random: { random })
    }

    @Test func retriesRetryableStatusesWithBackoff() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock)])
        let calls = Counter()
        mock.stub { _ in calls.increment() < 3 ? .status(503) : .ok(body: "done") }
        #expect(try await fiber.get("/").text == "done")
        #expect(mock.requests.count == 3)
        #expect(clock.sleeps == [.seconds(0.5), .seconds(1)])
    }

    @Test func givesUpAfterMaxRetriesWithTheLastResponse() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock, random: 1)])
        mock.stubAll(.serverError())
        #expect(try await fiber.get("/").statusCode == 500)
        #expect(mock.requests.count == 4)
        #expect(clock.sleeps == [.seconds(0.625), .seconds(1.25), .seconds(2.5)])
    }

    @Test func postIsNotRetriedByDefault() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock)])
        mock.stubAll(.serverError())
        #expect(try await fiber.post("/orders").statusCode == 500)
        #expect(mock.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func nonRetryableStatusIsReturned() async throws {
        let (fiber, mock) = mockFiber([retry(TestClock())])
        mock.stubAll(.notFound())
        #expect(try await fiber.get("/").statusCode == 404)
        #expect(mock.requests.count == 1)
    }

    @Test func retriesNetworkErrorsAndTimeoutsButNotOthers() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock)])
        let calls = Counter()
        mock.stub { _ in
            switch calls.increment() {
            case 1: .failure(TransportError(.connectionReset, operation: "read"))
            case 2: .failure(FiberError.timeout)
            default: .ok()
            }
        }
        #expect(try await fiber.get("/").statusCode == 200)
        #expect(mock.requests.count == 3)

        struct Custom: Error {}
        mock.stubAll(.failure(Custom()))
        mock.resetRequests()
        await expectFiberError({ if case .networkError(let e) = $0 { e is Custom } else { false } }) { try await fiber.get("/") }
        #expect(mock.requests.count == 4)  // a custom transport error is a networkError: retried
    }

    @Test func shouldRetryAddsErrors() async throws {
        struct Flaky: Error {}
        let clock = TestClock()
        let flaky = AnyInterceptor("flaky") { request, next in
            let response = try await next(request)
            if response.header("X-Flaky") != nil { throw Flaky() }
            return response
        }
        let retryAll = RetryInterceptor(maxRetries: 2, shouldRetry: { $0 is Flaky }, clock: clock.fiberClock, random: { 0 })
        let retryNone = RetryInterceptor(maxRetries: 2, clock: clock.fiberClock, random: { 0 })
        for (interceptor, expected) in [(retryAll, 3), (retryNone, 1)] {
            let (fiber, mock) = mockFiber([interceptor, flaky])
            mock.stubAll(StubResponse.ok().header("X-Flaky", "1"))
            await #expect(throws: Flaky.self) { try await fiber.get("/") }
            #expect(mock.requests.count == expected)
        }
    }

    @Test func honoursRetryAfterSeconds() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock)])
        let calls = Counter()
        mock.stub { _ in calls.increment() == 1 ? StubResponse.status(429).header("Retry-After", "7") : .ok() }
        #expect(try await fiber.get("/").statusCode == 200)
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func retryAfterDate() throws {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let response = FiberResponse(data: Data(), statusCode: 503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:47 GMT"],
                                     request: FiberRequest(url: "http://h/"))
        #expect(RetryAfter.delay(in: response, now: now) == .seconds(10))
        let bad = FiberResponse(data: Data(), statusCode: 503, headers: ["Retry-After": "soon"], request: FiberRequest(url: "http://h/"))
        #expect(RetryAfter.delay(in: bad, now: now) == nil)
    }

    @Test func retryAfterBeyondMaxDelayIsNotWaited() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([retry(clock)])
        mock.stubAll(StubResponse.status(503).header("Retry-After", "3600"))
        #expect(try await fiber.get("/").statusCode == 503)
        #expect(mock.requests.count == 1 && clock.sleeps.isEmpty)
    }

    @Test func neverSleepsPastTheDeadline() async throws {
        let clock = TestClock()
        let (fiber, mock) = mockFiber([RetryInterceptor(maxRetries: 5, baseDelay: 2, clock: clock.fiberClock, random: { 0 })])
        mock.stubAll(.status(503))
        // 1 s of budget: the first delay (2 s) would end after the deadline.
        let response = try await fiber.send(FiberRequest(url: "https://api.example.com/").timeout(1))
        #expect(response.statusCode == 503)
        #expect(mock.requests.count == 1 && clock.sleeps.isEmpty)
    }

    @Test func stopsWhenCancelled() async throws {
        let (fiber, mock) = mockFiber([RetryInterceptor(maxRetries: 3, baseDelay: 3600, maxDelay: 3600)])
        mock.stubAll(.status(503))
        let task = Task { try await fiber.get("/") }
        try await waitUntil { mock.requests.count == 1 }
        task.cancel()
        await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await task.value }
        #expect(mock.requests.count == 1)
    }
}
