extension ConnectionMonitor {
    /// What the monitor concluded from the kernel's routing state, once settled.
    public struct Status: Hashable, Sendable, CustomStringConvertible {
        /// True when a default route (IPv4 or IPv6, main table) leaves through an
        /// interface that is up and has a usable address of the route's family.
        public var isReachable: Bool
        /// The kind of interface of the preferred such route; nil when unreachable.
        public var interfaceType: InterfaceType?

        /// A status; `interfaceType` is kept only when `isReachable`.
        public init(isReachable: Bool, interfaceType: InterfaceType?) {
            self.isReachable = isReachable
            self.interfaceType = isReachable ? interfaceType : nil
        }

        /// No usable default route.
        public static let unreachable = Status(isReachable: false, interfaceType: nil)

        /// "reachable via wiredEthernet", or "unreachable".
        public var description: String {
            guard isReachable else { return "unreachable" }
            return "reachable via \(interfaceType?.description ?? "unknown interface")"
        }
    }
}
