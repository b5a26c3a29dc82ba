/// The kernel's facts the monitor keeps: interfaces, their addresses, and the
/// default routes of the main table. Pure: built from `NetlinkMessage`s, it
/// answers whether the machine can reach beyond itself.
///
/// Reachable means: some default route (destination length 0, main table,
/// unicast, IPv4 or IPv6) leaves through an interface that
/// - is administratively up (`IFF_UP`) and operationally up: `IF_OPER_UP`,
///   or `IF_OPER_UNKNOWN` (what drivers without carrier reporting, tun
///   devices among them, say), or `IFF_RUNNING` when the kernel sent no state;
/// - is not the loopback device;
/// - has an address of the route's family that is usable: for IPv4 any
///   address not of host scope; for IPv6 one of global scope (unique-local
///   included) that is neither tentative nor failed duplicate detection, as a
///   link-local source cannot reach past the link.
/// A route that names a nexthop object instead of an interface counts when
/// any interface qualifies for its family.
struct NetworkFacts: Equatable, Sendable {
    private(set) var links: [Int32: NetlinkLink] = [:]
    private(set) var addresses: [NetlinkAddress.Key: NetlinkAddress] = [:]
    private(set) var defaultRoutes: [NetlinkRoute.Key: NetlinkRoute] = [:]

    init() {}

    /// Records `message`; returns whether anything changed.
    @discardableResult
    mutating func apply(_ message: NetlinkMessage) -> Bool {
        switch message {
        case .link(let link, let deleted):
            if deleted {
                guard links.removeValue(forKey: link.index) != nil else { return false }
                // The kernel drops a deleted interface's addresses and routes, not always aloud.
                addresses = addresses.filter { $0.key.index != link.index }
                defaultRoutes = defaultRoutes.filter { !$0.value.outputInterfaces.contains(link.index) }
                return true
            }
            var merged = link
            // A change notice may leave out attributes the kernel sent before.
            if let old = links[link.index] {
                merged.name = merged.name ?? old.name
                merged.operationalState = merged.operationalState ?? old.operationalState
                merged.driverKind = merged.driverKind ?? old.driverKind
            }
            guard links[link.index] != merged else { return false }
            links[link.index] = merged
            return true
        case .address(let address, let deleted):
            if deleted { return addresses.removeValue(forKey: address.key) != nil }
            guard addresses[address.key] != address else { return false }
            addresses[address.key] = address
            return true
        case .route(let route, let deleted):
            guard route.destinationLength == 0, route.table == Netlink.tableMain else { return false }
            if deleted { return defaultRoutes.removeValue(forKey: route.key) != nil }
            guard defaultRoutes[route.key] != route else { return false }
            defaultRoutes[route.key] = route
            return true
        case .done, .error:
            return false
        }
    }

    /// Whether a default route is usable, and the kind of interface of the preferred one
    /// (lowest metric, then IPv4 before IPv6, then lowest interface index).
    var status: ConnectionMonitor.Status {
        var best: (priority: UInt32, family: UInt8, index: Int32)?
        for route in defaultRoutes.values where route.type == Netlink.routeUnicast {
            let candidates = route.outputInterfaces.isEmpty ? Array(links.keys) : route.outputInterfaces
            for index in candidates where isUsable(index, family: route.family) {
                let candidate = (route.priority, route.family, index)
                if best == nil || candidate < best! { best = candidate }
            }
        }
        guard let best, let link = links[best.index] else { return .unreachable }
        return ConnectionMonitor.Status(isReachable: true, interfaceType: ConnectionMonitor.InterfaceType(link))
    }

    /// Whether interface `index` is up, not loopback, and has a usable address of `family`.
    func isUsable(_ index: Int32, family: UInt8) -> Bool {
        guard let link = links[index], Self.isUp(link),
              ConnectionMonitor.InterfaceType(link) != .loopback else { return false }
        return addresses.values.contains { $0.index == index && $0.family == family && Self.isUsable($0) }
    }

    static func isUp(_ link: NetlinkLink) -> Bool {
        guard link.flags & Netlink.interfaceUp != 0 else { return false }
        guard let state = link.operationalState else { return link.flags & Netlink.interfaceRunning != 0 }
        return state == Netlink.operationalUp || state == Netlink.operationalUnknown
    }

    static func isUsable(_ address: NetlinkAddress) -> Bool {
        switch address.family {
        case Netlink.familyIPv4:
            return address.scope < Netlink.scopeHost
        case Netlink.familyIPv6:
            return address.scope == Netlink.scopeUniverse
                && address.flags & (Netlink.addressTentative | Netlink.addressDADFailed) == 0
        default:
            return false
        }
    }

    /// Whether `message` may have made the kernel drop routes without a notice:
    /// IPv4 routes through an interface vanish silently when it goes down, is
    /// deleted, or loses its last address. The monitor then reads the tables again.
    func invalidatesRoutes(_ message: NetlinkMessage) -> Bool {
        switch message {
        case .link(let link, let deleted):
            guard let old = links[link.index] else { return false }
            return deleted || (old.flags & Netlink.interfaceUp) != (link.flags & Netlink.interfaceUp)
        case .address(let address, let deleted):
            return deleted && addresses[address.key] != nil
        default:
            return false
        }
    }
}
