@testable import FiberRuntime
import Testing

/// The HTTP/2 connection's own decisions, without sockets: capacity, GOAWAY,
/// control-frame floods and PING liveness.
@Suite("HTTP/2 connection state machine")
struct HTTP2ConnectionStateMachineTests {
    typealias SM = HTTP2ConnectionStateMachine
    let t0 = ContinuousClock.now

    @Test func capacityIsOneUntilSettingsThenTheSmallerOfBothLimits() {
        var sm = SM(limits: .init(maxConcurrentStreams: 50))
        #expect(sm.capacity == 1)
        #expect(sm.settingsReceived(maxConcurrentStreams: 128) == 50)
        #expect(sm.settingsReceived(maxConcurrentStreams: 10) == 10)
        #expect(sm.settingsReceived(maxConcurrentStreams: 10) == nil, "unchanged: nothing to report")
        var unlimited = SM(limits: .init(maxConcurrentStreams: 1000))
        #expect(unlimited.settingsReceived(maxConcurrentStreams: nil) == 1000, "SETTINGS without a limit: the client's")
    }

    @Test func goAwayDrainsThenClosesAfterTheLastStream() {
        var sm = SM(limits: .init())
        _ = sm.settingsReceived(maxConcurrentStreams: 100)
        _ = sm.streamOpened()
        _ = sm.streamOpened()
        #expect(sm.goAwayReceived() == .drain)
        #expect(sm.capacity == 0)
        #expect(sm.streamClosed() == .none)
        #expect(sm.streamClosed() == .close)
        var idle = SM(limits: .init())
        #expect(idle.goAwayReceived() == .close)
    }

    @Test func controlFramesPastTheBudgetWithinTheWindowAreAFlood() {
        var sm = SM(limits: .init(maxControlFrames: 3, controlFrameWindow: .seconds(10)))
        let accepted = (0..<4).map { sm.controlFrameReceived(now: t0 + .seconds($0)) }
        #expect(accepted == [true, true, true, false])
        var spread = SM(limits: .init(maxControlFrames: 3, controlFrameWindow: .seconds(10)))
        let spreadOut = stride(from: 0, to: 60, by: 4).map { spread.controlFrameReceived(now: t0 + .seconds($0)) }
        #expect(spreadOut.allSatisfy { $0 }, "three per ten seconds at most: never a flood")
    }

    @Test func anIdleConnectionPingsAndClosesWithoutAnAcknowledgement() {
        var sm = SM(limits: .init(pingInterval: .seconds(30), pingTimeout: .seconds(5)))
        #expect(sm.streamOpened() == .stopped)
        #expect(sm.streamClosed() == .idle(.ping(after: .seconds(30))))
        #expect(sm.idleTimerFired() == .sendPing(.awaitAcknowledgement(within: .seconds(5))))
        #expect(sm.pingAcknowledged() == .ping(after: .seconds(30)))
        #expect(sm.idleTimerFired() == .sendPing(.awaitAcknowledgement(within: .seconds(5))))
        #expect(sm.idleTimerFired() == .close, "no acknowledgement in time: the connection is dead")
    }

    @Test func aStreamOpenedWhileAPingIsOutLeavesItsTimerRunning() {
        var sm = SM(limits: .init(pingInterval: .seconds(30), pingTimeout: .seconds(5)))
        _ = sm.idleTimerFired()
        #expect(sm.streamOpened() == nil, "the acknowledgement timer keeps running")
        #expect(sm.pingAcknowledged() == .stopped, "busy: no PING while streams run")
        #expect(sm.streamClosed() == .idle(.ping(after: .seconds(30))))
    }

    @Test func withoutAPingIntervalIdleConnectionsAreLeftToThePool() {
        var sm = SM(limits: .init(pingInterval: nil))
        _ = sm.streamOpened()
        #expect(sm.streamClosed() == .idle(.stopped))
    }
}
