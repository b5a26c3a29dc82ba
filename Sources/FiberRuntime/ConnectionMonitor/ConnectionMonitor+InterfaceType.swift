extension ConnectionMonitor {
    /// The kind of interface the default route leaves through, told from the link
    /// the kernel reports.
    ///
    /// - `wiredEthernet`: an Ethernet device (`ARPHRD_ETHER`) that is not wireless.
    ///   Virtual Ethernet devices (veth, bridge, VLAN, macvlan) are Ethernet to
    ///   the kernel and count here: a container's `eth0` is a veth.
    /// - `wifi`: an Ethernet device with `/sys/class/net/NAME/wireless` or
    ///   `/sys/class/net/NAME/phy80211`, or an 802.11 device type.
    /// - `loopback`: the loopback device (never the interface of a reachable
    ///   route, but a link can be one).
    /// - `other`: everything else: tunnels (WireGuard, tun, GRE, SIT, IPIP), PPP,
    ///   raw-IP modems, InfiniBand.
    ///
    /// A struct over a closed set of values, so that kinds can be added later.
    public struct InterfaceType: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// `wifi`, `wiredEthernet`, `loopback` or `other`.
        public var description: String { name }

        /// An Ethernet device, physical or virtual, that is not wireless.
        public static let wiredEthernet = InterfaceType("wiredEthernet")
        /// A wireless (802.11) device.
        public static let wifi = InterfaceType("wifi")
        /// The loopback device.
        public static let loopback = InterfaceType("loopback")
        /// A tunnel, PPP, a raw-IP modem, or any other kind of device.
        public static let other = InterfaceType("other")
    }
}

extension ConnectionMonitor.InterfaceType {
    /// The kind of `link`.
    init(_ link: NetlinkLink) {
        if link.hardwareType == Netlink.hardwareLoopback || link.flags & Netlink.interfaceLoopback != 0 {
            self = .loopback
        } else if Netlink.hardwareWireless.contains(link.hardwareType) {
            self = .wifi
        } else if link.hardwareType == Netlink.hardwareEthernet {
            self = link.isWireless ? .wifi : .wiredEthernet
        } else {
            self = .other
        }
    }
}
