/// Reads NETLINK_ROUTE datagrams into `NetlinkItem`s. Pure: no I/O, no state.
///
/// Every read is bounds-checked against the datagram. A header whose length
/// is impossible ends the walk (what follows cannot be framed); a message too
/// short for its family header, or of a type the monitor does not read, is
/// skipped; an attribute whose length runs past its message ends that
/// message's attributes. Nothing the kernel (or anyone) sends can crash it.
enum NetlinkParser {
    /// The messages of one datagram, in order.
    static func items(in bytes: UnsafeRawBufferPointer) -> [NetlinkItem] {
        var items: [NetlinkItem] = []
        var offset = 0
        while bytes.count - offset >= Netlink.headerSize {
            let length = Int(bytes.load(at: offset, as: UInt32.self))
            guard length >= Netlink.headerSize, length <= bytes.count - offset else { break }
            let type = bytes.load(at: offset + 4, as: UInt16.self)
            let flags = bytes.load(at: offset + 6, as: UInt16.self)
            let sequence = bytes.load(at: offset + 8, as: UInt32.self)
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + Netlink.headerSize)..<(offset + length)])
            if let message = message(type: type, body: body) {
                items.append(NetlinkItem(message: message, sequence: sequence,
                                         interrupted: flags & Netlink.flagDumpInterrupted != 0))
            }
            offset += aligned(length)
        }
        return items
    }

    /// The messages of `bytes` (for tests and callers holding an array).
    static func items(in bytes: [UInt8]) -> [NetlinkItem] {
        bytes.withUnsafeBytes { items(in: $0) }
    }

    private static func message(type: UInt16, body: UnsafeRawBufferPointer) -> NetlinkMessage? {
        switch type {
        case Netlink.messageDone:
            return .done
        case Netlink.messageError:
            guard body.count >= 4 else { return nil }
            return .error(code: body.loadUnaligned(as: Int32.self))
        case Netlink.newLink, Netlink.deleteLink:
            return link(body).map { .link($0, deleted: type == Netlink.deleteLink) }
        case Netlink.newAddress, Netlink.deleteAddress:
            return address(body).map { .address($0, deleted: type == Netlink.deleteAddress) }
        case Netlink.newRoute, Netlink.deleteRoute:
            return route(body).map { .route($0, deleted: type == Netlink.deleteRoute) }
        default:
            return nil
        }
    }

    // MARK: Families

    /// `ifinfomsg` (16 bytes): family, pad, type u16, index i32, flags u32, change u32.
    private static func link(_ body: UnsafeRawBufferPointer) -> NetlinkLink? {
        guard body.count >= 16 else { return nil }
        var link = NetlinkLink(index: body.loadUnaligned(fromByteOffset: 4, as: Int32.self),
                               hardwareType: body.loadUnaligned(fromByteOffset: 2, as: UInt16.self),
                               flags: body.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        attributes(of: body, after: 16) { type, value in
            switch type {
            case 3: link.name = string(value)                                     // IFLA_IFNAME
            case 16: if value.count >= 1 { link.operationalState = value[0] }     // IFLA_OPERSTATE
            case 18:                                                              // IFLA_LINKINFO
                attributes(of: value, after: 0) { inner, innerValue in
                    if inner == 1 { link.driverKind = string(innerValue) }        // IFLA_INFO_KIND
                }
            default: break
            }
        }
        return link
    }

    /// `ifaddrmsg` (8 bytes): family, prefix length, flags, scope, index u32.
    private static func address(_ body: UnsafeRawBufferPointer) -> NetlinkAddress? {
        guard body.count >= 8 else { return nil }
        var local: [UInt8]?
        var peer: [UInt8]?
        var flags = UInt32(body[2])
        attributes(of: body, after: 8) { type, value in
            switch type {
            case 1: peer = Array(value)                                            // IFA_ADDRESS
            case 2: local = Array(value)                                           // IFA_LOCAL
            case 8: if value.count >= 4 { flags = value.loadUnaligned(as: UInt32.self) }  // IFA_FLAGS
            default: break
            }
        }
        guard let address = local ?? peer else { return nil }
        return NetlinkAddress(family: body[0], prefixLength: body[1], scope: body[3],
                              index: Int32(bitPattern: body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                              flags: flags, address: address)
    }

    /// `rtmsg` (12 bytes): family, dst len, src len, tos, table, protocol, scope, type, flags u32.
    private static func route(_ body: UnsafeRawBufferPointer) -> NetlinkRoute? {
        guard body.count >= 12 else { return nil }
        var route = NetlinkRoute(family: body[0], destinationLength: body[1], tos: body[3], table: UInt32(body[4]),
                                 type: body[7], priority: 0, gateway: nil, outputInterfaces: [])
        attributes(of: body, after: 12) { type, value in
            switch type {
            case 4: if value.count >= 4 { route.outputInterfaces.append(value.loadUnaligned(as: Int32.self)) }  // RTA_OIF
            case 5: route.gateway = Array(value)                                                                // RTA_GATEWAY
            case 6: if value.count >= 4 { route.priority = value.loadUnaligned(as: UInt32.self) }               // RTA_PRIORITY
            case 9: route.outputInterfaces += hops(value)                                                       // RTA_MULTIPATH
            case 15: if value.count >= 4 { route.table = value.loadUnaligned(as: UInt32.self) }                // RTA_TABLE
            default: break
            }
        }
        return route
    }

    /// The interfaces of `RTA_MULTIPATH`: `rtnexthop`s (len u16, flags, hops, ifindex i32, attributes).
    private static func hops(_ value: UnsafeRawBufferPointer) -> [Int32] {
        var interfaces: [Int32] = []
        var offset = 0
        while value.count - offset >= 8 {
            let length = Int(value.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 8, length <= value.count - offset else { break }
            interfaces.append(value.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self))
            offset += aligned(length)
        }
        return interfaces
    }

    // MARK: Attributes

    /// Calls `body` with each `rtattr` (len u16, type u16, value) from `start`,
    /// the type without its `NLA_F_NESTED` and `NLA_F_NET_BYTEORDER` bits.
    private static func attributes(of bytes: UnsafeRawBufferPointer, after start: Int,
                                   _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        var offset = start
        while bytes.count - offset >= 4 {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 4, length <= bytes.count - offset else { return }
            let type = bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & 0x3FFF
            body(type, UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)]))
            offset += aligned(length)
        }
    }

    /// A NUL-terminated (or not) string attribute.
    private static func string(_ value: UnsafeRawBufferPointer) -> String {
        let end = value.firstIndex(of: 0) ?? value.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: value[0..<end]), as: UTF8.self)
    }

    /// `NLMSG_ALIGN` / `RTA_ALIGN`: up to a multiple of 4.
    private static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }
}

private extension UnsafeRawBufferPointer {
    /// A load at a byte offset that need not be aligned (a datagram's messages are, but a caller's bytes may not be).
    func load<T>(at offset: Int, as type: T.Type) -> T { loadUnaligned(fromByteOffset: offset, as: type) }
}
