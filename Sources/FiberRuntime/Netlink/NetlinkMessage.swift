/// One NETLINK_ROUTE message, reduced to the facts the connection monitor uses.
///
/// The kernel's structures (`nlmsghdr`, `ifinfomsg`, `ifaddrmsg`, `rtmsg`,
/// `rtattr`) are read by `NetlinkParser`; the numbers below are the kernel's
/// stable ABI (`linux/netlink.h`, `linux/rtnetlink.h`, `linux/if_arp.h`).
enum NetlinkMessage: Equatable, Sendable {
    /// `RTM_NEWLINK` (`deleted` false) or `RTM_DELLINK`.
    case link(NetlinkLink, deleted: Bool)
    /// `RTM_NEWADDR` or `RTM_DELADDR`.
    case address(NetlinkAddress, deleted: Bool)
    /// `RTM_NEWROUTE` or `RTM_DELROUTE`.
    case route(NetlinkRoute, deleted: Bool)
    /// `NLMSG_DONE`: the end of a dump.
    case done
    /// `NLMSG_ERROR`: `code` is a negative errno (0 is an acknowledgement).
    case error(code: Int32)
}

/// A message with the header fields that say where it belongs.
struct NetlinkItem: Equatable, Sendable {
    var message: NetlinkMessage
    /// `nlmsg_seq`: the number of the dump it answers, 0 for a notification.
    var sequence: UInt32
    /// `NLM_F_DUMP_INTR`: the tables changed while the dump was being read.
    var interrupted: Bool
}

/// A network interface (`ifinfomsg` and its attributes).
struct NetlinkLink: Equatable, Sendable {
    var index: Int32
    /// `ARPHRD_*`.
    var hardwareType: UInt16
    /// `IFF_*`.
    var flags: UInt32
    /// `IFLA_IFNAME`.
    var name: String?
    /// `IFLA_OPERSTATE` (`IF_OPER_*`), when the kernel sent it.
    var operationalState: UInt8?
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO` ("veth", "bridge", "wireguard", …).
    var driverKind: String?
    /// Whether the device is a wireless one (from sysfs; the parser leaves it false).
    var isWireless = false
}

/// An address on an interface (`ifaddrmsg` and its attributes).
struct NetlinkAddress: Hashable, Sendable {
    var family: UInt8
    var prefixLength: UInt8
    /// `RT_SCOPE_*`.
    var scope: UInt8
    var index: Int32
    /// `IFA_F_*`, from `IFA_FLAGS` when present (it holds all 32 bits).
    var flags: UInt32
    /// `IFA_LOCAL`, else `IFA_ADDRESS`.
    var address: [UInt8]

    /// What identifies the address to the kernel.
    struct Key: Hashable, Sendable {
        var index: Int32
        var family: UInt8
        var prefixLength: UInt8
        var address: [UInt8]
    }

    var key: Key { Key(index: index, family: family, prefixLength: prefixLength, address: address) }
}

/// A route (`rtmsg` and its attributes).
struct NetlinkRoute: Hashable, Sendable {
    var family: UInt8
    var destinationLength: UInt8
    var tos: UInt8
    /// `RTA_TABLE` when present, else `rtm_table`.
    var table: UInt32
    /// `RTN_*` (unicast, blackhole, unreachable, …).
    var type: UInt8
    /// `RTA_PRIORITY` (the metric), 0 when absent.
    var priority: UInt32
    /// `RTA_GATEWAY`, when present.
    var gateway: [UInt8]?
    /// `RTA_OIF`, or every hop of `RTA_MULTIPATH`; empty for a route that names a nexthop object.
    var outputInterfaces: [Int32]

    /// What identifies the route to the kernel: for IPv4 the table, destination,
    /// TOS and metric (a new route with the same key replaces the old one); for
    /// IPv6 also the gateway and interface, as IPv6 keeps one route per next hop.
    struct Key: Hashable, Sendable {
        var family: UInt8
        var table: UInt32
        var destinationLength: UInt8
        var tos: UInt8
        var priority: UInt32
        var gateway: [UInt8]?
        var outputInterfaces: [Int32]
    }

    var key: Key {
        let v6 = family == Netlink.familyIPv6
        return Key(family: family, table: table, destinationLength: destinationLength, tos: tos, priority: priority,
                   gateway: v6 ? gateway : nil, outputInterfaces: v6 ? outputInterfaces : [])
    }
}

/// The kernel's numbers the monitor reads.
enum Netlink {
    static let headerSize = 16

    static let messageError: UInt16 = 2        // NLMSG_ERROR
    static let messageDone: UInt16 = 3         // NLMSG_DONE
    static let newLink: UInt16 = 16            // RTM_NEWLINK
    static let deleteLink: UInt16 = 17
    static let getLink: UInt16 = 18
    static let newAddress: UInt16 = 20         // RTM_NEWADDR
    static let deleteAddress: UInt16 = 21
    static let getAddress: UInt16 = 22
    static let newRoute: UInt16 = 24           // RTM_NEWROUTE
    static let deleteRoute: UInt16 = 25
    static let getRoute: UInt16 = 26

    static let flagDumpInterrupted: UInt16 = 0x10  // NLM_F_DUMP_INTR

    static let familyIPv4: UInt8 = 2           // AF_INET
    static let familyIPv6: UInt8 = 10          // AF_INET6

    static let interfaceUp: UInt32 = 0x1       // IFF_UP
    static let interfaceLoopback: UInt32 = 0x8 // IFF_LOOPBACK
    static let interfaceRunning: UInt32 = 0x40 // IFF_RUNNING

    static let operationalUnknown: UInt8 = 0   // IF_OPER_UNKNOWN
    static let operationalUp: UInt8 = 6        // IF_OPER_UP

    static let hardwareEthernet: UInt16 = 1    // ARPHRD_ETHER
    static let hardwareLoopback: UInt16 = 772  // ARPHRD_LOOPBACK
    static let hardwareWireless: ClosedRange<UInt16> = 801...803  // ARPHRD_IEEE80211{,_PRISM,_RADIOTAP}

    static let addressTentative: UInt32 = 0x40 // IFA_F_TENTATIVE
    static let addressDADFailed: UInt32 = 0x08 // IFA_F_DADFAILED

    static let scopeUniverse: UInt8 = 0        // RT_SCOPE_UNIVERSE
    static let scopeHost: UInt8 = 254          // RT_SCOPE_HOST

    static let tableMain: UInt32 = 254         // RT_TABLE_MAIN
    static let routeUnicast: UInt8 = 1         // RTN_UNICAST
}
