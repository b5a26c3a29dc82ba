@testable import FiberRuntime
import Testing

@Suite("Connection pool state machine")
struct PoolStateMachineTests {
    typealias SM = ConnectionPoolStateMachine
    let t0 = ContinuousClock.now

    @Test func firstRequestOpensAConnectionAndGetsIt() {
        var sm = SM(limits: .init(maxConnections: 2))
        #expect(sm.leaseRequested(1, now: t0) == [.createConnection(1)])
        #expect(sm.statistics == .init(open: 1, connecting: 1, waiting: 1))
        #expect(sm.connectionEstablished(1, now: t0) == [.lease(1, to: 1)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.statistics == .init(open: 1, idle: 1))
        #expect(sm.leaseRequested(2, now: t0) == [.lease(1, to: 2)])
    }

    @Test func limitsConnectionsAndServesWaitersInOrder() {
        var sm = SM(limits: .init(maxConnections: 2))
        #expect(sm.leaseRequested(1, now: t0) == [.createConnection(1)])
        #expect(sm.leaseRequested(2, now: t0) == [.createConnection(2)])
        #expect(sm.leaseRequested(3, now: t0) == [])
        #expect(sm.leaseRequested(4, now: t0) == [])
        #expect(sm.connectionEstablished(2, now: t0) == [.lease(2, to: 1)])
        #expect(sm.connectionEstablished(1, now: t0) == [.lease(1, to: 2)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.lease(1, to: 3)])
        #expect(sm.connectionReleased(2, reusable: true, now: t0) == [.lease(2, to: 4)])
        #expect(sm.statistics.open == 2)
    }

    @Test func mostRecentlyUsedIdleConnectionGoesFirst() {
        var sm = SM(limits: .init(maxConnections: 2))
        _ = sm.leaseRequested(1, now: t0); _ = sm.leaseRequested(2, now: t0)
        _ = sm.connectionEstablished(1, now: t0); _ = sm.connectionEstablished(2, now: t0)
        _ = sm.connectionReleased(2, reusable: true, now: t0)
        _ = sm.connectionReleased(1, reusable: true, now: t0 + .seconds(1))
        #expect(sm.leaseRequested(3, now: t0 + .seconds(2)) == [.lease(1, to: 3)])
    }

    @Test func unreusableConnectionIsClosedAndReplacedForWaiters() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, now: t0)
        #expect(sm.leaseRequested(2, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: false, now: t0) == [.closeConnection(1), .createConnection(2)])
        #expect(sm.connectionEstablished(2, now: t0) == [.lease(2, to: 2)])
    }

    @Test func connectFailureFailsTheOldestWaiterAndRetriesForTheRest() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        #expect(sm.connectionFailed(1, now: t0) == [.failWaiter(1, .connectFailed), .createConnection(2)])
        #expect(sm.connectionFailed(2, now: t0) == [.failWaiter(2, .connectFailed)])
        #expect(sm.isEmpty)
    }

    @Test func waitersLeaveOnTimeoutOrCancellation() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        _ = sm.leaseRequested(3, now: t0)
        #expect(sm.waiterLeft(2, because: .timedOut) == [.failWaiter(2, .timedOut)])
        #expect(sm.waiterLeft(2, because: .timedOut) == [])
        #expect(sm.waiterLeft(3, because: .cancelled) == [.failWaiter(3, .cancelled)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.statistics == .init(open: 1, idle: 1))
    }

    @Test func idleTimeoutAndLifetimeCloseConnections() {
        var sm = SM(limits: .init(maxConnections: 2, idleTimeout: .seconds(10), maxLifetime: .seconds(30)))
        _ = sm.leaseRequested(1, now: t0); _ = sm.leaseRequested(2, now: t0)
        _ = sm.connectionEstablished(1, now: t0); _ = sm.connectionEstablished(2, now: t0)
        _ = sm.connectionReleased(1, reusable: true, now: t0 + .seconds(1))
        _ = sm.connectionReleased(2, reusable: true, now: t0 + .seconds(5))
        #expect(sm.nextSweep == t0 + .seconds(11))
        #expect(sm.sweep(now: t0 + .seconds(12)) == [.closeConnection(1)])
        #expect(sm.statistics.open == 1)
        // Past its lifetime, an idle connection is closed instead of leased.
        #expect(sm.leaseRequested(3, now: t0 + .seconds(31)) == [.closeConnection(2), .createConnection(3)])
        _ = sm.connectionEstablished(3, now: t0 + .seconds(31))
        #expect(sm.connectionReleased(3, reusable: true, now: t0 + .seconds(62)) == [.closeConnection(3)])
    }

    @Test func idleLimitClosesSurplusConnections() {
        var sm = SM(limits: .init(maxConnections: 3, maxIdle: 1))
        for w in 1...3 { _ = sm.leaseRequested(w, now: t0) }
        for c in 1...3 { _ = sm.connectionEstablished(c, now: t0) }
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(2, reusable: true, now: t0) == [.closeConnection(2)])
        #expect(sm.statistics == .init(open: 2, idle: 1, leased: 1))
    }

    @Test func serverClosingAnIdleConnectionRemovesIt() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, now: t0)
        _ = sm.connectionReleased(1, reusable: true, now: t0)
        #expect(sm.connectionClosed(1, now: t0) == [])
        #expect(sm.leaseRequested(2, now: t0) == [.createConnection(2)])
    }

    @Test func shutdownFailsWaitersClosesIdleAndLeasedOnRelease() {
        var sm = SM(limits: .init(maxConnections: 2))
        _ = sm.leaseRequested(1, now: t0); _ = sm.leaseRequested(2, now: t0)
        _ = sm.connectionEstablished(1, now: t0)
        _ = sm.leaseRequested(3, now: t0)
        let actions = sm.shutdown()
        #expect(Set(actions.map { "\($0)" }) == Set([SM.Action.failWaiter(2, .shutdown), .failWaiter(3, .shutdown)].map { "\($0)" }))
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.closeConnection(1)])
        #expect(sm.leaseRequested(4, now: t0) == [.failWaiter(4, .shutdown)])
        // Connection 2 was being opened: it closes as soon as it is established.
        #expect(sm.connectionEstablished(2, now: t0) == [.closeConnection(2)])
        #expect(sm.statistics == .init())
    }

    /// Forgotten at shutdown, a connection still being opened stayed open once established.
    @Test func aConnectionBeingOpenedAtShutdownIsClosedOnceEstablished() {
        var sm = SM(limits: .init(maxConnections: 2))
        _ = sm.leaseRequested(1, now: t0)
        #expect(sm.shutdown() == [.failWaiter(1, .shutdown)])
        #expect(sm.statistics == .init(open: 1, connecting: 1))
        #expect(sm.connectionEstablished(1, now: t0) == [.closeConnection(1)])
        #expect(sm.statistics == .init())
    }

    /// A connection freed while others are being opened serves the oldest waiter; a new
    /// request then waits for one of those, and opens none (they would be surplus).
    @Test func aRequestDoesNotOpenAConnectionThatOneBeingOpenedWillServe() {
        var sm = SM(limits: .init(maxConnections: 8))
        for w in 1...4 { #expect(sm.leaseRequested(w, now: t0) == [.createConnection(w)]) }
        #expect(sm.connectionEstablished(1, now: t0) == [.lease(1, to: 1)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.lease(1, to: 2)])
        #expect(sm.leaseRequested(5, now: t0) == [])
        #expect(sm.statistics == .init(open: 4, leased: 1, connecting: 3, waiting: 3))
        // Every connection established serves a waiter: none is left idle.
        #expect(sm.connectionEstablished(2, now: t0) == [.lease(2, to: 3)])
        #expect(sm.connectionEstablished(3, now: t0) == [.lease(3, to: 4)])
        #expect(sm.connectionEstablished(4, now: t0) == [.lease(4, to: 5)])
        #expect(sm.statistics == .init(open: 4, leased: 4))
    }

    @Test func lateEventsForUnknownConnectionsAreIgnored() {
        var sm = SM(limits: .init())
        #expect(sm.connectionEstablished(9, now: t0) == [])
        #expect(sm.connectionReleased(9, reusable: true, now: t0) == [])
        #expect(sm.connectionFailed(9, now: t0) == [])
        #expect(sm.connectionClosed(9, now: t0) == [])
    }
}
