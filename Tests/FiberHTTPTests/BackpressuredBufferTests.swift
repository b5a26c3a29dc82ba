@testable import FiberRuntime
import FiberTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The runtime's one backpressured buffer (a streamed body, a WebSocket's
/// events), and the watermark rule it follows.
@Suite("Backpressured buffer")
struct BackpressuredBufferTests {
    struct Failed: Error, Equatable { var name: String }

    typealias Buffer = BackpressuredBuffer<Int, Failed>

    func buffer(low: Int = 10, high: Int = 100) -> Buffer {
        Buffer(lowWatermark: low, highWatermark: high, whenCancelled: Failed(name: "cancelled"), whenReadTwice: Failed(name: "twice"))
    }

    /// Waits (by observed state) until a consumer is suspended in `next()`.
    func waitForConsumer<E, F>(_ buffer: BackpressuredBuffer<E, F>) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while buffer.withState({ $0.waiter == nil }) {
            guard clock.now < deadline else { Issue.record("no consumer waited"); return }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    // MARK: The rule

    /// `ReadBackpressure` against its definition, over random runs: reading
    /// stops when the high watermark is reached and resumes only once the
    /// consumer is back at the low one; never again after the end. (Seeded, so a failure repeats.)
    @Test(arguments: [1, 2, 3, 42, 1234])
    func theWatermarkRuleFollowsItsDefinition(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let low = Int(random.next() % 50), high = low + 1 + Int(random.next() % 100)
        var rule = ReadBackpressure(lowWatermark: low, highWatermark: high)
        var buffered = 0, reading = true, finished = false
        for step in 0..<2000 {
            let count = Int(random.next() % 40)
            if random.next() % 2 == 0 {
                buffered += count
                let expected: ReadBackpressure.Action = reading && buffered >= high ? .stopReading : .none
                if expected == .stopReading { reading = false }
                #expect(rule.received(count) == expected, "step \(step)")
            } else {
                buffered = max(0, buffered - count)
                let expected: ReadBackpressure.Action = !reading && !finished && buffered <= low ? .startReading : .none
                if expected == .startReading { reading = true }
                #expect(rule.consumed(count) == expected, "step \(step)")
            }
            if step == 1500 {
                rule.finished()
                reading = false
                finished = true
            }
            #expect(rule.buffered == buffered && rule.isReading == reading, "step \(step)")
        }
    }

    // MARK: Order and the end

    @Test func handsOutInOrderThenTheEndEveryTime() async throws {
        let b = buffer()
        for i in 1...3 { b.push(i, size: 1) }
        b.finish()
        b.push(4, size: 1)   // after the end: dropped
        var taken: [Int] = []
        while let i = try await b.next() { taken.append(i) }
        #expect(taken == [1, 2, 3])
        #expect(try await b.next() == nil)
    }

    @Test func aFailureComesAfterTheQueuedElementsAndStays() async throws {
        let b = buffer()
        b.push(1, size: 1)
        b.finish(Failed(name: "reset"))
        b.finish(nil)   // only the first finish counts
        #expect(try await b.next() == 1)
        for _ in 0..<2 {
            await #expect(throws: Failed(name: "reset")) { try await b.next() }
        }
    }

    @Test func aWaitingConsumerGetsTheElementUncounted() async throws {
        let b = buffer(low: 1, high: 2)
        let consumer = Task { try await b.next() }
        try await waitForConsumer(b)
        b.push(7, size: 1000)
        #expect(try await consumer.value == 7)
        #expect(b.bufferedSize == 0)
    }

    @Test func aWaitingConsumerHearsTheEnd() async throws {
        let b = buffer()
        let consumer = Task { try await b.next() }
        try await waitForConsumer(b)
        b.finish(Failed(name: "eof"))
        await #expect(throws: Failed(name: "eof")) { try await consumer.value }
    }

    // MARK: One consumer, cancellation

    @Test func aSecondWaitingConsumerIsRefusedAndTheFirstStillServed() async throws {
        let b = buffer()
        let first = Task { try await b.next() }
        try await waitForConsumer(b)
        await #expect(throws: Failed(name: "twice")) { try await b.next() }
        b.push(5, size: 1)
        #expect(try await first.value == 5)

        let events = BackpressuredBuffer<Int, Never>(lowWatermark: 1, highWatermark: 2)
        let firstEvents = Task { await events.next() }
        try await waitForConsumer(events)
        #expect(await events.next() == nil)
        events.push(6, size: 1)
        #expect(await firstEvents.value == 6)
    }

    @Test func aCancelledConsumerEndsAndLosesNothing() async throws {
        let b = buffer()
        let consumer = Task { try await b.next() }
        try await waitForConsumer(b)
        consumer.cancel()
        await #expect(throws: Failed(name: "cancelled")) { try await consumer.value }
        b.push(1, size: 1)
        #expect(try await b.next() == 1)

        let events = BackpressuredBuffer<Int, Never>(lowWatermark: 1, highWatermark: 2)
        let eventConsumer = Task { await events.next() }
        try await waitForConsumer(events)
        eventConsumer.cancel()
        #expect(await eventConsumer.value == nil)
        events.push(2, size: 1)
        #expect(await events.next() == 2)
    }

    @Test func anAlreadyCancelledConsumerStillTakesWhatIsQueued() async throws {
        let b = buffer()
        b.push(1, size: 1)
        let consumer = Task { () async -> (Int?, Failed?) in
            withUnsafeCurrentTask { $0?.cancel() }
            let first = try? await b.next()
            do {
                _ = try await b.next()
                return (first, nil)
            } catch {
                return (first, error as? Failed)
            }
        }
        let (first, second) = await consumer.value
        #expect(first == 1)
        #expect(second == Failed(name: "cancelled"))
    }

    // MARK: Telling the producer

    /// A loop's producer hears on its loop, once per change: stop at the high
    /// watermark, go on at the low one, whichever thread the consumer runs on.
    @Test func aLoopProducerIsToldOnItsLoopOnlyWhenTheAnswerChanges() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "buffer-test")
        let loop = group.loops[0]
        let b = buffer(low: 10, high: 100)
        let told = Locked<[Bool]>([])
        let onLoop = Locked(true)
        b.controlReading(on: loop) { reading in
            onLoop.withLock { $0 = $0 && loop.inEventLoop }
            told.withLock { $0.append(reading) }
        }
        try await loop.submit { for i in 0..<5 { b.push(i, size: 40) } }   // 200: stop once, at 120
        #expect(told.withLock { $0 } == [false])
        for i in 0..<4 { #expect(try await b.next() == i) }   // 160, 120, 80, 40: no change yet
        try await loop.submit {}
        #expect(told.withLock { $0 } == [false])
        #expect(try await b.next() == 4)   // 0: at the low watermark, off the loop
        try await loop.submit {}           // the change is applied on the loop
        #expect(told.withLock { $0 } == [false, true])
        #expect(onLoop.withLock { $0 })
        try await group.shutdown()
    }

    /// The consumer lets the producer go on from another thread, and before
    /// that reaches the loop the producer pushes past the high watermark
    /// again: the late "go on" must not undo the new "stop", or the buffer
    /// would grow without bound.
    @Test func aLateGoOnDoesNotUndoANewerStop() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "buffer-test")
        let loop = group.loops[0]
        let b = buffer(low: 10, high: 100)
        let told = Locked<[Bool]>([])
        b.controlReading(on: loop) { reading in told.withLock { $0.append(reading) } }
        try await loop.submit { for i in 0..<3 { b.push(i, size: 40) } }
        #expect(told.withLock { $0 } == [false])
        // Hold the loop, as a read callback still parsing its buffer would.
        let drained = Locked(false)
        let held = Locked(false)
        try loop.execute {
            held.withLock { $0 = true }
            while !drained.withLock({ $0 }) { usleep(200) }
            for i in 3..<6 { b.push(i, size: 40) }   // past the high watermark again
        }
        while !held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        for i in 0..<3 { #expect(try await b.next() == i) }   // at 0 <= low: "go on", queued behind the held job
        drained.withLock { $0 = true }
        try await loop.submit {}
        #expect(told.withLock { $0 } == [false])
        #expect(b.bufferedSize == 120)
        // Draining again lets it go on, once.
        for i in 3..<6 { #expect(try await b.next() == i) }
        try await loop.submit {}
        #expect(told.withLock { $0 } == [false, true])
        try await group.shutdown()
    }

    @Test func theProducerIsNeverToldAfterTheEnd() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "buffer-test")
        let loop = group.loops[0]
        let b = buffer(low: 10, high: 100)
        let told = Locked<[Bool]>([])
        b.controlReading(on: loop) { reading in told.withLock { $0.append(reading) } }
        try await loop.submit {
            for i in 0..<3 { b.push(i, size: 40) }
            b.finish()
        }
        while try await b.next() != nil {}
        try await loop.submit {}
        #expect(told.withLock { $0 } == [false])
        try await group.shutdown()
    }

    /// Handing the whole queue on (a socket whose bytes go to TLS or a parser
    /// in place) takes every element in order, counts them consumed, and lets
    /// a stopped producer go on; an empty queue hands on nothing and tells nobody.
    @Test func takingTheQueueHandsItOnInOrderAndLetsTheProducerGoOn() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "buffer-test")
        let loop = group.loops[0]
        let b = buffer(low: 10, high: 100)
        let told = Locked<[Bool]>([])
        b.controlReading(on: loop) { reading in told.withLock { $0.append(reading) } }
        try await loop.submit { for i in 0..<4 { b.push(i, size: 40) } }
        #expect(told.withLock { $0 } == [false])
        #expect(try await loop.submit { b.takeQueued() } == [0, 1, 2, 3])
        #expect(b.bufferedSize == 0)
        #expect(told.withLock { $0 } == [false, true])
        #expect(try await loop.submit { b.takeQueued() } == [])
        #expect(told.withLock { $0 } == [false, true])
        // The buffer goes on as before: a later push is the next element.
        try await loop.submit { b.push(9, size: 1); b.finish() }
        #expect(try await b.next() == 9)
        #expect(try await b.next() == nil)
        try await group.shutdown()
    }

    /// A task producer waits while the consumer is behind, and goes on at the low watermark or the end.
    @Test func aTaskProducerWaitsForDemand() async throws {
        let b = buffer(low: 10, high: 100)
        await b.waitForDemand()   // not behind: returns at once
        for i in 0..<3 { b.push(i, size: 40) }
        let wentOn = Locked(false)
        let producer = Task {
            await b.waitForDemand()
            wentOn.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!wentOn.withLock { $0 })
        _ = try await b.next()   // 80
        _ = try await b.next()   // 40
        try await Task.sleep(for: .milliseconds(20))
        #expect(!wentOn.withLock { $0 })
        _ = try await b.next()   // 0
        await producer.value
        #expect(wentOn.withLock { $0 })

        for i in 0..<3 { b.push(i, size: 40) }
        let ended = Task { await b.waitForDemand() }
        b.finish()
        await ended.value
    }
}
