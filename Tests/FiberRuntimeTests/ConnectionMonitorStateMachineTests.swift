@testable import FiberRuntime
import Testing

@Suite("ConnectionMonitor: state machine")
struct ConnectionMonitorStateMachineTests {
    typealias K = Kernel
    typealias Machine = ConnectionMonitorStateMachine
    static let online = ConnectionMonitor.Status(isReachable: true, interfaceType: .wiredEthernet)

    /// A machine past its first read, which found `messages`.
    static func started(with messages: [NetlinkMessage] = [K.link(2), K.v4(2), K.defaultRoute(2)],
                        expecting status: ConnectionMonitor.Status = online) -> Machine {
        var machine = Machine(firstSequence: 10)
        #expect(machine.started() == [.requestDump(.links, sequence: 10)])
        for message in messages { _ = machine.received(dump(message, 10)) }
        #expect(machine.received(dump(.done, 10)) == [.requestDump(.addresses, sequence: 11)])
        #expect(machine.received(dump(.done, 11)) == [.requestDump(.routes, sequence: 12)])
        #expect(machine.received(dump(.done, 12)) == [.publish(status)])
        return machine
    }

    static func dump(_ message: NetlinkMessage, _ sequence: UInt32, interrupted: Bool = false) -> NetlinkItem {
        NetlinkItem(message: message, sequence: sequence, interrupted: interrupted)
    }

    static func notice(_ message: NetlinkMessage) -> NetlinkItem { dump(message, 0) }

    @Test func theFirstReadPublishesAtOnce() {
        let machine = Self.started()
        #expect(machine.published == Self.online)
        #expect(!machine.isReading)
        _ = Self.started(with: [K.link(2)], expecting: .unreachable)
    }

    @Test func noticesDuringTheFirstReadCountButDoNotPublish() {
        var machine = Machine(firstSequence: 1)
        _ = machine.started()
        #expect(machine.received(Self.notice(K.link(2))) == [])
        _ = machine.received(Self.dump(.done, 1))
        #expect(machine.received(Self.notice(K.v4(2))) == [])
        _ = machine.received(Self.dump(.done, 2))
        _ = machine.received(Self.dump(K.defaultRoute(2), 3))
        #expect(machine.received(Self.dump(.done, 3)) == [.publish(Self.online)])
    }

    @Test func aChangePublishesOnlyAfterTheQuietPeriod() {
        var machine = Self.started()
        #expect(machine.received(Self.notice(K.defaultRoute(2, deleted: true))) == [.startQuietTimer])
        #expect(machine.published == Self.online, "not yet")
        #expect(machine.quietPeriodEnded() == [.publish(.unreachable)])
        #expect(machine.quietPeriodEnded() == [], "a late timer does nothing")
    }

    @Test func aFlapThatReturnsInTimeIsNeverPublished() {
        var machine = Self.started()
        #expect(machine.received(Self.notice(K.defaultRoute(2, deleted: true))) == [.startQuietTimer])
        #expect(machine.received(Self.notice(K.defaultRoute(2))) == [.stopQuietTimer])
        #expect(machine.quietPeriodEnded() == [])
        #expect(machine.published == Self.online)
    }

    @Test func eachNewStatusRestartsTheQuietPeriodButNoiseDoesNot() {
        var machine = Self.started(with: [K.link(2), K.v4(2), K.link(3, wireless: true), K.v4(3, 3), K.defaultRoute(2)])
        #expect(machine.received(Self.notice(K.defaultRoute(2, deleted: true))) == [.startQuietTimer])
        #expect(machine.received(Self.notice(K.v4(2, 9))) == [], "the same status: the timer runs on")
        #expect(machine.received(Self.notice(K.defaultRoute(3))) == [.startQuietTimer], "wifi now: counted from here")
        #expect(machine.quietPeriodEnded() == [.publish(.init(isReachable: true, interfaceType: .wifi))])
    }

    @Test func goingDownRereadsTheTables() {
        var machine = Self.started()
        let actions = machine.received(Self.notice(K.link(2, flags: 0)))
        #expect(actions == [.requestDump(.links, sequence: 13), .startQuietTimer])
        // The kernel dropped the IPv4 default route without a notice; the read says so.
        _ = machine.received(Self.dump(K.link(2, flags: 0), 13))
        _ = machine.received(Self.dump(K.v4(2), 13))
        _ = machine.received(Self.dump(.done, 13))
        _ = machine.received(Self.dump(.done, 14))
        #expect(machine.received(Self.dump(.done, 15)) == [])
        #expect(machine.facts.defaultRoutes.isEmpty)
        #expect(machine.quietPeriodEnded() == [.publish(.unreachable)])
        // Up again: reachable only once the route is back.
        #expect(machine.received(Self.notice(K.link(2))).first == .requestDump(.links, sequence: 16))
        _ = machine.received(Self.dump(K.link(2), 16))
        _ = machine.received(Self.dump(K.v4(2), 16))
        for sequence: UInt32 in 16...18 { _ = machine.received(Self.dump(.done, sequence)) }
        #expect(machine.received(Self.notice(K.defaultRoute(2))) == [.startQuietTimer])
        #expect(machine.quietPeriodEnded() == [.publish(Self.online)])
    }

    @Test func anOverrunRereadsAndOneDuringAReadQueuesAnother() {
        var machine = Self.started()
        #expect(machine.overran() == [.requestDump(.links, sequence: 13)])
        #expect(machine.overran() == [], "one read at a time")
        for message in [K.link(2), K.v4(2)] { _ = machine.received(Self.dump(message, 13)) }
        #expect(machine.received(Self.dump(.done, 13)) == [.requestDump(.addresses, sequence: 14)])
        _ = machine.received(Self.dump(.done, 14))
        // No route in this read: not published yet, and the queued read follows.
        #expect(machine.received(Self.dump(.done, 15)) == [.startQuietTimer, .requestDump(.links, sequence: 16)])
        for message in [K.link(2), K.v4(2), K.defaultRoute(2)] { _ = machine.received(Self.dump(message, 16)) }
        _ = machine.received(Self.dump(.done, 16))
        _ = machine.received(Self.dump(.done, 17))
        #expect(machine.received(Self.dump(.done, 18)) == [.stopQuietTimer])
        #expect(!machine.isReading)
        #expect(machine.published == Self.online)
    }

    @Test func aReadReplacesFactsItDidNotSee() {
        var machine = Self.started()
        _ = machine.overran()
        _ = machine.received(Self.dump(K.link(2), 13))
        _ = machine.received(Self.dump(.done, 13))
        _ = machine.received(Self.dump(.done, 14))
        #expect(machine.received(Self.dump(.done, 15)) == [.startQuietTimer], "no address or route any more")
        #expect(machine.quietPeriodEnded() == [.publish(.unreachable)])
    }

    @Test func interruptedOrFailedDumpsAreRetriedAFewTimes() {
        var machine = Machine(firstSequence: 1)
        _ = machine.started()
        _ = machine.received(Self.dump(K.link(2), 1, interrupted: true))
        #expect(machine.received(Self.dump(.done, 1)) == [.requestDump(.links, sequence: 2)])
        #expect(machine.received(Self.dump(.error(code: -16), 2)) == [.requestDump(.links, sequence: 3)])
        #expect(machine.dumpFailed(sequence: 3) == [.requestDump(.links, sequence: 4)])
        // Out of retries: the read goes on with what it has.
        #expect(machine.dumpFailed(sequence: 4) == [.requestDump(.addresses, sequence: 5)])
        #expect(machine.dumpFailed(sequence: 99) == [], "not the dump under way")
    }

    @Test func anInterruptedDoneRestartsTheRead() {
        var machine = Self.started()
        _ = machine.overran()
        #expect(machine.received(Self.dump(.done, 13, interrupted: true)) == [.requestDump(.links, sequence: 14)])
    }

    @Test func staleAnswersAndAcknowledgementsAreIgnored() {
        var machine = Self.started()
        #expect(machine.received(Self.dump(.done, 11)) == [])
        #expect(machine.received(Self.dump(.error(code: 0), 0)) == [])
        #expect(machine.received(Self.dump(K.defaultRoute(2, deleted: true), 12)) == [.startQuietTimer],
                "a message numbered for an old dump is a notice like any other")
    }

    @Test func sequenceNumbersSkipZero() {
        var machine = Machine(firstSequence: .max)
        #expect(machine.started() == [.requestDump(.links, sequence: .max)])
        #expect(machine.received(Self.dump(.done, .max)) == [.requestDump(.addresses, sequence: 1)])
    }
}
