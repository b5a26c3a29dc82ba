@testable import FiberRuntime
import Testing

/// The pool's rules for HTTP/2 connections, which serve several requests at
/// once: slots, capacity changes, draining, and a second connection only when
/// the first is full.
@Suite("Connection pool state machine: multiplexed connections")
struct MultiplexedPoolStateMachineTests {
    typealias SM = ConnectionPoolStateMachine
    let t0 = ContinuousClock.now

    @Test func oneStreamUntilTheServerSettingsThenAsManyAsItAllows() {
        var sm = SM(limits: .init(maxConnections: 4))
        #expect(sm.leaseRequested(1, now: t0) == [.createConnection(1)])
        #expect(sm.leaseRequested(2, now: t0) == [.createConnection(2)])
        #expect(sm.leaseRequested(3, now: t0) == [.createConnection(3)])
        // Established before its SETTINGS: one stream; the others wait for them.
        #expect(sm.connectionEstablished(1, capacity: 1, multiplexed: true, now: t0) == [.lease(1, to: 1)])
        #expect(sm.connectionCapacityChanged(1, capacity: 100, now: t0) == [.lease(1, to: 2), .lease(1, to: 3)])
        #expect(sm.statistics == .init(open: 3, leased: 1, connecting: 2))
        // Opened for waiters another connection served: surplus, closed at once.
        #expect(sm.connectionEstablished(2, capacity: 1, multiplexed: true, now: t0) == [.closeConnection(2)])
        #expect(sm.connectionEstablished(3, capacity: 1, multiplexed: true, now: t0) == [.closeConnection(3)])
        #expect(sm.leaseRequested(4, now: t0) == [.lease(1, to: 4)])
    }

    @Test func aFullConnectionOpensAnotherUpToTheLimitInsteadOfQueuing() {
        var sm = SM(limits: .init(maxConnections: 2))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 2, multiplexed: true, now: t0)
        #expect(sm.leaseRequested(2, now: t0) == [.lease(1, to: 2)])
        #expect(sm.leaseRequested(3, now: t0) == [.createConnection(2)])
        #expect(sm.leaseRequested(4, now: t0) == [], "the connection being opened is expected to serve it")
        #expect(sm.connectionEstablished(2, capacity: 2, multiplexed: true, now: t0) == [.lease(2, to: 3), .lease(2, to: 4)])
        #expect(sm.leaseRequested(5, now: t0) == [], "both full, at the limit: it waits")
        #expect(sm.statistics.waiting == 1)
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.lease(1, to: 5)])
    }

    @Test func streamsEndOneByOneAndTheConnectionGoesIdleAfterTheLast() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 10, multiplexed: true, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        #expect(sm.statistics == .init(open: 1, leased: 1))
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.statistics == .init(open: 1, leased: 1))
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.statistics == .init(open: 1, idle: 1))
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [], "a release too many is ignored")
        #expect(sm.sweep(now: t0 + .seconds(61)) == [.closeConnection(1)])
    }

    @Test func aServerLoweringItsLimitStopsNewStreamsUntilBelowIt() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 3, multiplexed: true, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        _ = sm.leaseRequested(3, now: t0)
        #expect(sm.connectionCapacityChanged(1, capacity: 1, now: t0) == [])
        #expect(sm.leaseRequested(4, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.lease(1, to: 4)])
    }

    @Test func goAwayDrainsAndAnotherConnectionServesTheWaiters() {
        var sm = SM(limits: .init(maxConnections: 2))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 1, multiplexed: true, now: t0)
        #expect(sm.leaseRequested(2, now: t0) == [.createConnection(2)])
        _ = sm.connectionCapacityChanged(1, capacity: 5, now: t0)
        // GOAWAY with a stream in flight: no new stream there; the connection being opened serves the rest.
        _ = sm.leaseRequested(3, now: t0)
        #expect(sm.connectionDraining(1, now: t0) == [])
        #expect(sm.leaseRequested(4, now: t0) == [])
        #expect(sm.connectionEstablished(2, capacity: 5, multiplexed: true, now: t0) == [.lease(2, to: 4)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.closeConnection(1)], "closed after its last stream")
    }

    @Test func goAwayOnAnIdleConnectionClosesIt() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 5, multiplexed: true, now: t0)
        _ = sm.connectionReleased(1, reusable: true, now: t0)
        #expect(sm.connectionDraining(1, now: t0) == [.closeConnection(1)])
        #expect(sm.isEmpty)
    }

    @Test func pastItsLifetimeItTakesNoNewStreamAndClosesAfterTheLast() {
        var sm = SM(limits: .init(maxConnections: 2, maxLifetime: .seconds(10)))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 5, multiplexed: true, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        #expect(sm.connectionReleased(1, reusable: true, now: t0 + .seconds(11)) == [])
        #expect(sm.leaseRequested(3, now: t0 + .seconds(11)) == [.createConnection(2)])
        #expect(sm.connectionReleased(1, reusable: true, now: t0 + .seconds(12)) == [.closeConnection(1)])
    }

    @Test func shutdownClosesItWhenItsLastStreamEnds() {
        var sm = SM(limits: .init(maxConnections: 1))
        _ = sm.leaseRequested(1, now: t0)
        _ = sm.connectionEstablished(1, capacity: 5, multiplexed: true, now: t0)
        _ = sm.leaseRequested(2, now: t0)
        #expect(sm.shutdown() == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [])
        #expect(sm.connectionReleased(1, reusable: true, now: t0) == [.closeConnection(1)])
    }
}
