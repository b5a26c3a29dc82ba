import Crypto
@testable import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A step with nothing to do for a request is passed over by the chain (`passesOn`),
/// without its frame: what it would have done must not change, request by request.
@Suite struct PassOnTests {
    /// A logger whose threshold the test moves (nil: it keeps nothing).
    struct SwitchableLogger: FiberLogger {
        let minimum = Locked<FiberLogLevel?>(nil)
        let lines = Locked<[String]>([])
        func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
            lines.withLock { $0.append(message) }
        }
        func isLogging(_ level: FiberLogLevel) -> Bool { minimum.withLock { $0.map { level >= $0 } ?? false } }
    }

    @Test func passedOverStepsStillActWhenTheyHaveWorkAgain() async throws {
        let logger = SwitchableLogger()
        let sleeps = Counter()
        let frozen = FiberClock(now: { .zero }, sleep: { _, _ in sleeps.increment() })
        let key = SymmetricKey(size: .bits256)
        let (fiber, mock) = mockFiber([
            LoggingInterceptor(logger: logger),
            EncryptionInterceptor(provider: AESGCMEncryptionProvider(key: key), encryptRequest: true, decryptResponse: false),
            RateLimitInterceptor(maxRequests: 2, perInterval: 1, maxWait: 5, clock: frozen),
        ])
        mock.stubAll(.ok(body: "plain"))

        // Logging keeps nothing and there is no body: both are passed over; the response comes back as it was.
        #expect(try await fiber.get("/a").text == "plain")
        #expect(logger.lines.withLock { $0.isEmpty } && mock.lastRequest?.httpBody == nil)

        // The logger now keeps lines, and a body is there to encrypt: both steps act again.
        logger.minimum.withLock { $0 = .info }
        let sent = Data("secret".utf8)
        _ = try await fiber.send(FiberRequest(url: "\(apiURL.absoluteString)/b").method(.post).body(sent))
        #expect(logger.lines.withLock { $0.count } == 2)
        let encrypted = try #require(mock.lastRequest?.httpBody)
        let decrypted = try AESGCMEncryptionProvider(key: key).decrypt(encrypted)
        #expect(encrypted != sent && decrypted == sent)

        // Two tokens, both taken on the way through: the third request waits for the next one.
        #expect(sleeps.count == 0)
        _ = try await fiber.get("/c")
        #expect(sleeps.count == 1 && mock.requests.count == 3)
    }

    @Test func aTokenAtHandIsTakenAndNoneIsReservedOtherwise() {
        var bucket = TokenBucket(capacity: 1, interval: .seconds(1), now: .zero)
        let first = bucket.takeAtHand(now: .zero)
        let second = bucket.takeAtHand(now: .zero)
        #expect(first && !second && bucket.tokens == 0)  // nothing reserved
        #expect(bucket.take(now: .zero, maxWait: .seconds(5)) == .wait(.seconds(1)))
        let whenDue = bucket.takeAtHand(now: .seconds(1))  // the token due then is the waiting request's
        let later = bucket.takeAtHand(now: .seconds(2))
        #expect(!whenDue && later)
    }

    @Test func retryAndCacheAreAskedForTheRequestAtHand() {
        let retry = RetryInterceptor(maxRetries: 2)
        let cache = CacheInterceptor()
        let get = FiberRequest(url: "https://api.example.com/x")
        let post = get.method(.post)
        #expect(!retry.passesOn(get) && retry.passesOn(post) && RetryInterceptor(maxRetries: 0).passesOn(get))
        let (skip, other) = (get.meta("cache", "skip"), get.meta("cache", "other"))
        #expect(!cache.passesOn(get) && cache.passesOn(post) && cache.passesOn(skip) && !cache.passesOn(other))
    }
}
