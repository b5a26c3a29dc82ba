@testable import FiberRuntime
import Testing

/// Kernel facts as the parser hands them over, for the pure tests.
enum Kernel {
    static let upRunning: UInt32 = 0x1 | 0x40 | 0x1_0000

    static func link(_ index: Int32, flags: UInt32 = upRunning, state: UInt8? = 6, type: UInt16 = 1,
                     wireless: Bool = false, deleted: Bool = false) -> NetlinkMessage {
        var link = NetlinkLink(index: index, hardwareType: type, flags: flags, name: "if\(index)", operationalState: state)
        link.isWireless = wireless
        return .link(link, deleted: deleted)
    }

    static func v4(_ index: Int32, _ last: UInt8 = 2, scope: UInt8 = 0, deleted: Bool = false) -> NetlinkMessage {
        .address(NetlinkAddress(family: 2, prefixLength: 24, scope: scope, index: index, flags: 0,
                                address: [10, 0, 0, last]), deleted: deleted)
    }

    static func v6(_ index: Int32, scope: UInt8 = 0, flags: UInt32 = 0, deleted: Bool = false) -> NetlinkMessage {
        let prefix: [UInt8] = scope == 253 ? [0xFE, 0x80] : [0x20, 0x01]
        return .address(NetlinkAddress(family: 10, prefixLength: 64, scope: scope, index: index, flags: flags,
                                       address: prefix + Array(repeating: 0, count: 13) + [UInt8(index)]), deleted: deleted)
    }

    static func defaultRoute(_ index: Int32?, family: UInt8 = 2, metric: UInt32 = 0, table: UInt32 = 254,
                             type: UInt8 = 1, destinationLength: UInt8 = 0, deleted: Bool = false) -> NetlinkMessage {
        .route(NetlinkRoute(family: family, destinationLength: destinationLength, tos: 0, table: table, type: type,
                            priority: metric, gateway: family == 2 ? [10, 0, 0, 1] : nil,
                            outputInterfaces: index.map { [$0] } ?? []), deleted: deleted)
    }

    static func facts(_ messages: NetlinkMessage...) -> NetworkFacts {
        var facts = NetworkFacts()
        for message in messages { facts.apply(message) }
        return facts
    }
}

@Suite("ConnectionMonitor: what reachable means")
struct ConnectionMonitorFactsTests {
    typealias K = Kernel
    static let wired = ConnectionMonitor.Status(isReachable: true, interfaceType: .wiredEthernet)

    @Test func aDefaultRouteThroughAnUpInterfaceWithAnAddressIsReachable() {
        #expect(K.facts(K.link(2), K.v4(2), K.defaultRoute(2)).status == Self.wired)
        #expect(K.facts(K.link(2), K.v6(2), K.defaultRoute(2, family: 10)).status == Self.wired)
    }

    @Test func eachMissingPieceMakesItUnreachable() {
        #expect(K.facts(K.link(2), K.v4(2)).status == .unreachable, "no default route")
        #expect(K.facts(K.link(2), K.defaultRoute(2)).status == .unreachable, "no address")
        #expect(K.facts(K.link(2, flags: 0x40), K.v4(2), K.defaultRoute(2)).status == .unreachable, "administratively down")
        #expect(K.facts(K.link(2, state: 2), K.v4(2), K.defaultRoute(2)).status == .unreachable, "operationally down")
        #expect(K.facts(K.link(2, state: 5), K.v4(2), K.defaultRoute(2)).status == .unreachable, "dormant")
        #expect(K.facts(K.v4(2), K.defaultRoute(2)).status == .unreachable, "no such link")
        #expect(K.facts(K.link(2), K.v4(3), K.defaultRoute(2)).status == .unreachable, "the address is elsewhere")
        #expect(K.facts(K.link(2), K.v6(2), K.defaultRoute(2)).status == .unreachable, "an IPv4 route needs an IPv4 address")
    }

    @Test func operationalStateUnknownOrAbsentFollowsTheFlags() {
        #expect(K.facts(K.link(2, state: 0), K.v4(2), K.defaultRoute(2)).status.isReachable, "unknown (tun) counts")
        #expect(K.facts(K.link(2, state: nil), K.v4(2), K.defaultRoute(2)).status.isReachable, "running, no state sent")
        #expect(!K.facts(K.link(2, flags: 0x1, state: nil), K.v4(2), K.defaultRoute(2)).status.isReachable, "up, not running")
    }

    @Test func onlyUnicastDefaultRoutesOfTheMainTableCount() {
        #expect(!K.facts(K.link(2), K.v4(2), K.defaultRoute(2, table: 100)).status.isReachable, "another table")
        #expect(!K.facts(K.link(2), K.v4(2), K.defaultRoute(2, type: 6)).status.isReachable, "blackhole")
        #expect(!K.facts(K.link(2), K.v4(2), K.defaultRoute(2, type: 7)).status.isReachable, "unreachable route")
        #expect(!K.facts(K.link(2), K.v4(2), K.defaultRoute(2, destinationLength: 8)).status.isReachable, "not default")
    }

    @Test func ipv6NeedsAGlobalSettledAddress() {
        #expect(!K.facts(K.link(2), K.v6(2, scope: 253), K.defaultRoute(2, family: 10)).status.isReachable, "link-local")
        #expect(!K.facts(K.link(2), K.v6(2, flags: 0x40), K.defaultRoute(2, family: 10)).status.isReachable, "tentative")
        #expect(!K.facts(K.link(2), K.v6(2, flags: 0x08), K.defaultRoute(2, family: 10)).status.isReachable, "DAD failed")
        #expect(K.facts(K.link(2), K.v6(2, flags: 0x20), K.defaultRoute(2, family: 10)).status.isReachable, "deprecated still works")
    }

    @Test func loopbackNeverCounts() {
        #expect(!K.facts(K.link(1, type: 772), K.v4(1, 1), K.defaultRoute(1)).status.isReachable)
        #expect(!K.facts(K.link(1, type: 772), K.v4(1, 1, scope: 254), K.defaultRoute(nil)).status.isReachable)
    }

    @Test func aRouteWithoutInterfaceUsesAnyQualifyingOne() {
        #expect(K.facts(K.link(1, type: 772), K.link(5, type: 65534), K.v4(5), K.defaultRoute(nil)).status
                == .init(isReachable: true, interfaceType: .other))
    }

    @Test func theInterfaceKindComesFromTheLink() {
        #expect(K.facts(K.link(3, wireless: true), K.v4(3), K.defaultRoute(3)).status.interfaceType == .wifi)
        #expect(K.facts(K.link(3, type: 801), K.v4(3), K.defaultRoute(3)).status.interfaceType == .wifi)
        #expect(K.facts(K.link(3, type: 65534), K.v4(3), K.defaultRoute(3)).status.interfaceType == .other, "tun, wireguard")
        #expect(K.facts(K.link(3, type: 512), K.v4(3), K.defaultRoute(3)).status.interfaceType == .other, "ppp")
    }

    @Test func theLowestMetricWinsThenIPv4() {
        let facts = K.facts(K.link(2), K.v4(2), K.link(3, wireless: true), K.v4(3, 3), K.v6(3),
                            K.defaultRoute(2, metric: 600), K.defaultRoute(3, metric: 100), K.defaultRoute(3, family: 10, metric: 100))
        #expect(facts.status.interfaceType == .wifi)
        let tie = K.facts(K.link(2), K.v4(2), K.link(3, wireless: true), K.v6(3),
                          K.defaultRoute(2, metric: 100), K.defaultRoute(3, family: 10, metric: 100))
        #expect(tie.status.interfaceType == .wiredEthernet)
    }

    @Test func deletionsUndoWhatTheyName() {
        var facts = K.facts(K.link(2), K.v4(2), K.defaultRoute(2))
        let changed1 = facts.apply(K.defaultRoute(2, deleted: true))
        #expect(changed1)
        #expect(!facts.status.isReachable)
        let changed2 = facts.apply(K.defaultRoute(2, deleted: true))
        #expect(!changed2, "deleting twice changes nothing")
        facts.apply(K.defaultRoute(2))
        let changed3 = facts.apply(K.v4(2, deleted: true))
        #expect(changed3)
        #expect(!facts.status.isReachable)
        facts.apply(K.v4(2))
        #expect(facts.status.isReachable)
        let changed4 = facts.apply(K.link(2, deleted: true))
        #expect(changed4)
        #expect(facts.addresses.isEmpty && facts.defaultRoutes.isEmpty, "a deleted link takes its addresses and routes")
    }

    @Test func anIPv4RouteWithTheSameKeyReplacesTheOld() {
        var facts = K.facts(K.link(2), K.v4(2), K.link(3), K.defaultRoute(2))
        facts.apply(K.defaultRoute(3))   // `ip route replace default dev if3`
        #expect(facts.defaultRoutes.count == 1)
        #expect(!facts.status.isReachable, "if3 has no address")
    }

    @Test func repeatedNoticesChangeNothing() {
        var facts = K.facts(K.link(2), K.v4(2), K.defaultRoute(2))
        let changed5 = facts.apply(K.link(2))
        #expect(!changed5)
        let changed6 = facts.apply(K.v4(2))
        #expect(!changed6)
        let changed7 = facts.apply(K.defaultRoute(2))
        #expect(!changed7)
        let changed8 = facts.apply(.done)
        #expect(!changed8)
    }

    @Test func whatMakesTheMonitorReadTheTablesAgain() {
        let facts = K.facts(K.link(2), K.v4(2), K.defaultRoute(2))
        #expect(facts.invalidatesRoutes(K.link(2, flags: 0)), "going down")
        #expect(facts.invalidatesRoutes(K.link(2, deleted: true)))
        #expect(facts.invalidatesRoutes(K.v4(2, deleted: true)))
        #expect(!facts.invalidatesRoutes(K.link(2, state: 2)), "carrier loss keeps routes")
        #expect(!facts.invalidatesRoutes(K.v4(2)))
        #expect(!facts.invalidatesRoutes(K.link(9)), "a new link")
    }
}
