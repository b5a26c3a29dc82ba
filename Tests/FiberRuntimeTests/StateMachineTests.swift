@testable import FiberRuntime
import Testing

@Suite("Pure state machines")
struct StateMachineTests {
    // MARK: LoopInbox

    @Test func inboxWakesOnceUntilDrained() {
        var inbox = LoopInbox<Int>()
        #expect(inbox.push(1, fromLoop: false) == .wakeLoop)
        #expect(inbox.push(2, fromLoop: false) == .none)
        var spare: [Int] = []
        inbox.takeAll(into: &spare)
        #expect(spare == [1, 2])
        #expect(inbox.isEmpty)
        #expect(inbox.push(3, fromLoop: false) == .wakeLoop)
    }

    @Test func inboxNeverWakesForTheLoopItself() {
        var inbox = LoopInbox<Int>()
        #expect(inbox.push(1, fromLoop: true) == .none)
        #expect(inbox.push(2, fromLoop: false) == .wakeLoop)
    }

    @Test func closedInboxSendsJobsToTheFallback() {
        var inbox = LoopInbox<Int>()
        _ = inbox.push(1, fromLoop: false)
        inbox.beginDraining()
        #expect(inbox.state == .draining)
        #expect(inbox.push(2, fromLoop: false) == .none)
        #expect(inbox.close() == [1, 2])
        #expect(inbox.push(3, fromLoop: false) == .runOnFallback)
        #expect(inbox.isEmpty)
    }

    // MARK: ReadBackpressure

    @Test func backpressureStopsAtHighAndResumesAtLow() {
        var bp = ReadBackpressure(lowWatermark: 10, highWatermark: 100)
        #expect(bp.received(60) == .none)
        #expect(bp.received(40) == .stopReading)
        #expect(bp.received(50) == .none)   // a read already in flight
        #expect(bp.consumed(100) == .none)  // 50 left: above low
        #expect(bp.consumed(40) == .startReading)
        #expect(bp.consumed(10) == .none)
        #expect(bp.buffered == 0 && bp.isReading)
    }

    @Test func finishedBackpressureNeverResumes() {
        var bp = ReadBackpressure(lowWatermark: 1, highWatermark: 2)
        #expect(bp.received(5) == .stopReading)
        bp.finished()
        #expect(bp.consumed(5) == .none)
        #expect(!bp.isReading)
    }

    // MARK: ResolverCache

    @Test func resolverCacheExpiresAfterTTL() {
        let t0 = ContinuousClock.now
        var cache = ResolverCache(ttl: .seconds(30), capacity: 4)
        let a = [SocketAddress.ipv4([127, 0, 0, 1], port: 80)]
        cache.store(a, host: "h", port: 80, now: t0)
        #expect(cache.lookup(host: "h", port: 80, now: t0 + .seconds(29)) == a)
        #expect(cache.lookup(host: "h", port: 80, now: t0 + .seconds(30)) == nil)
        #expect(cache.lookup(host: "h", port: 81, now: t0) == nil)
    }

    @Test func resolverCacheEvictsExpiredThenOldest() {
        let t0 = ContinuousClock.now
        var cache = ResolverCache(ttl: .seconds(10), capacity: 2)
        let a = [SocketAddress.ipv4([127, 0, 0, 1], port: 1)]
        cache.store(a, host: "old", port: 1, now: t0)
        cache.store(a, host: "mid", port: 1, now: t0 + .seconds(5))
        cache.store(a, host: "new", port: 1, now: t0 + .seconds(6))
        #expect(cache.count == 2)
        #expect(cache.lookup(host: "old", port: 1, now: t0 + .seconds(6)) == nil)
        #expect(cache.lookup(host: "mid", port: 1, now: t0 + .seconds(6)) != nil)
        cache.store(a, host: "newer", port: 1, now: t0 + .seconds(15.5))  // "mid" expired
        #expect(cache.lookup(host: "new", port: 1, now: t0 + .seconds(15.5)) != nil)
        #expect(cache.count == 2)
    }

    @Test func zeroTTLDisablesTheCache() {
        var cache = ResolverCache(ttl: .zero, capacity: 4)
        cache.store([.ipv4([1, 2, 3, 4], port: 1)], host: "h", port: 1, now: .now)
        #expect(cache.count == 0)
    }

    // MARK: HappyEyeballs

    @Test func firstAttemptWinsAlone() {
        var he = HappyEyeballs(addressCount: 1)
        #expect(he.start() == [.startAttempt(0)])
        #expect(he.attemptSucceeded(0) == [.disarmDelay, .succeed(0)])
        #expect(he.isDone)
        #expect(he.attemptFailed(0) == [])
    }

    @Test func delayStartsTheNextAttemptBesideTheFirst() {
        var he = HappyEyeballs(addressCount: 3)
        #expect(he.start() == [.startAttempt(0), .armDelay])
        #expect(he.delayElapsed() == [.startAttempt(1), .armDelay])
        #expect(he.delayElapsed() == [.startAttempt(2)])
        #expect(he.delayElapsed() == [])
        #expect(he.attemptSucceeded(1) == [.disarmDelay, .closeAttempt(0), .closeAttempt(2), .succeed(1)])
        #expect(he.attemptSucceeded(0) == [])
    }

    @Test func failureStartsTheNextAttemptAtOnce() {
        var he = HappyEyeballs(addressCount: 2)
        _ = he.start()
        #expect(he.attemptFailed(0) == [.disarmDelay, .startAttempt(1)])
        #expect(he.attemptFailed(1) == [.disarmDelay, .failAll])
        #expect(he.isDone)
    }

    @Test func allFailOnlyWhenNoneIsLeft() {
        var he = HappyEyeballs(addressCount: 2)
        _ = he.start()
        _ = he.delayElapsed()
        #expect(he.attemptFailed(1) == [])
        #expect(he.attemptFailed(0) == [.disarmDelay, .failAll])
    }

    @Test func timeoutClosesEveryAttempt() {
        var he = HappyEyeballs(addressCount: 3)
        _ = he.start()
        _ = he.delayElapsed()
        #expect(he.timedOut() == [.disarmDelay, .closeAttempt(0), .closeAttempt(1), .failTimeout])
        #expect(he.delayElapsed() == [])
        #expect(he.cancelled() == [])
    }

    @Test func noAddressesFailsAtOnce() {
        var he = HappyEyeballs(addressCount: 0)
        #expect(he.start() == [.failAll])
    }

    @Test func interleaveAlternatesFamiliesFromTheFirst() {
        let v6a = SocketAddress.ipv6(Array(repeating: 0, count: 15) + [1], port: 1)
        let v6b = SocketAddress.ipv6(Array(repeating: 0, count: 15) + [2], port: 1)
        let v4a = SocketAddress.ipv4([127, 0, 0, 1], port: 1)
        let v4b = SocketAddress.ipv4([127, 0, 0, 2], port: 1)
        #expect(HappyEyeballs.interleave([v6a, v6b, v4a, v4b]) == [v6a, v4a, v6b, v4b])
        #expect(HappyEyeballs.interleave([v4a, v6a, v6b]) == [v4a, v6a, v6b])
        #expect(HappyEyeballs.interleave([]) == [])
    }
}
