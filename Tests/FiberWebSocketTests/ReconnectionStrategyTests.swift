import FiberWebSocket
import Testing

@Suite("Reconnection strategies")
struct ReconnectionStrategyTests {
    @Test func exponentialDoublesUpToTheCapWithJitter() {
        let s = ReconnectionStrategy.exponentialBackoff(baseDelay: 1, maxDelay: 30, maxAttempts: 7, jitter: 0.5)
        #expect((1...7).map { s.delay(forAttempt: $0, random: { 0 }) } == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
        #expect(s.delay(forAttempt: 3, random: { 0.5 }) == .seconds(5))
        #expect(s.delay(forAttempt: 8) == nil)
    }

    @Test func fixedLinearAndNone() {
        #expect(ReconnectionStrategy.fixedDelay(5).delay(forAttempt: 100) == .seconds(5))
        #expect(ReconnectionStrategy.fixedDelay(5, maxAttempts: 2).delay(forAttempt: 3) == nil)
        let linear = ReconnectionStrategy.linearBackoff(step: 1, maxDelay: 3, maxAttempts: 5)
        #expect((1...6).map { linear.delay(forAttempt: $0) } == [1, 2, 3, 3, 3, nil].map { $0.map { Duration.seconds($0) } })
        #expect(ReconnectionStrategy.none.delay(forAttempt: 1) == nil)
    }
}
