@testable import Fiber
import FiberTesting
import Testing

/// The shutdown's decisions alone: admission, waiters, the grace period.
@Suite struct DrainStateMachineTests {
    @Test func requestsAreAdmittedAndCountedUntilAShutdown() {
        var machine = DrainStateMachine()
        #expect(machine.requestArrived() == .admit)
        #expect(machine.requestArrived() == .admit)
        #expect(machine.inFlight == 2)
        #expect(machine.requestFinished() == [])
        #expect(machine.inFlight == 1)
        #expect(machine.phase == .open)
    }

    @Test func aShutdownWithNothingInFlightFinishesAtOnceAndRefusesWhatComesAfter() {
        var machine = DrainStateMachine()
        #expect(machine.shutdownRequested(by: 0) == .finished)
        #expect(machine.phase == .draining)
        #expect(machine.requestArrived() == .refuse)
        #expect(machine.inFlight == 0)
        #expect(machine.gracePeriodEnded() == .none)
    }

    @Test func aShutdownThatBeganRefusesRequestsBeforeAnyoneWaits() {
        var machine = DrainStateMachine()
        _ = machine.requestArrived()
        machine.shutdownBegan()
        #expect(machine.phase == .draining)
        #expect(machine.requestArrived() == .refuse)
        #expect(machine.requestFinished() == [])
        #expect(machine.shutdownRequested(by: 0) == .finished)
    }

    @Test func waitersGoOnWhenTheLastRequestInFlightEnds() {
        var machine = DrainStateMachine()
        _ = machine.requestArrived()
        _ = machine.requestArrived()
        #expect(machine.shutdownRequested(by: 7) == .wait)
        #expect(machine.shutdownRequested(by: 8) == .wait)
        #expect(machine.requestArrived() == .refuse)
        #expect(machine.requestFinished() == [])
        #expect(machine.requestFinished() == [7, 8])
        // Resumed once: a later call finds nothing in flight.
        #expect(machine.shutdownRequested(by: 9) == .finished)
    }

    @Test func theEndOfAGracePeriodCancelsWhatIsInFlightOnce() {
        var machine = DrainStateMachine()
        _ = machine.requestArrived()
        #expect(machine.shutdownRequested(by: 1) == .wait)
        #expect(machine.gracePeriodEnded() == .cancelInFlight)
        #expect(machine.phase == .cancelling)
        #expect(machine.gracePeriodEnded() == .none)
        #expect(machine.requestArrived() == .refuse)
        #expect(machine.requestFinished() == [1])
    }

    @Test func aGracePeriodThatEndsAfterTheRequestsCancelsNothing() {
        var machine = DrainStateMachine()
        _ = machine.requestArrived()
        #expect(machine.shutdownRequested(by: 1) == .wait)
        #expect(machine.requestFinished() == [1])
        #expect(machine.gracePeriodEnded() == .none)
        #expect(machine.phase == .draining)
    }

    @Test func aGracePeriodBeforeAnyShutdownCancelsNothing() {
        var machine = DrainStateMachine()
        _ = machine.requestArrived()
        #expect(machine.gracePeriodEnded() == .none)
        #expect(machine.requestArrived() == .admit)
    }

    /// Random interleavings: the count never goes negative, nothing is admitted
    /// after a shutdown, and every waiter is resumed exactly once.
    @Test(arguments: 0..<20) func randomInterleavingsResumeEveryWaiterOnce(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        var machine = DrainStateMachine()
        var admitted = 0
        var waiting: Set<Int> = []
        var resumed: [Int] = []
        var nextWaiter = 0
        var shutDown = false
        for _ in 0..<200 {
            switch random.next() % 4 {
            case 0:
                let admission = machine.requestArrived()
                #expect(admission == (shutDown ? .refuse : .admit))
                if admission == .admit { admitted += 1 }
            case 1 where admitted > 0:
                admitted -= 1
                resumed += machine.requestFinished()
            case 2:
                shutDown = true
                if machine.shutdownRequested(by: nextWaiter) == .wait { waiting.insert(nextWaiter) }
                nextWaiter += 1
            default:
                _ = machine.gracePeriodEnded()
            }
            #expect(machine.inFlight == admitted)
        }
        while admitted > 0 {
            admitted -= 1
            resumed += machine.requestFinished()
        }
        #expect(resumed.count == Set(resumed).count)
        #expect(Set(resumed) == waiting)
    }
}
