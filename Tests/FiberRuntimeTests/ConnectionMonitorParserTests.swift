@testable import FiberRuntime
import FiberTesting
import Testing

/// Builds NETLINK_ROUTE datagrams byte by byte, as the kernel lays them out.
struct NetlinkBytes {
    private(set) var bytes: [UInt8] = []

    /// One `rtattr`, padded to 4 bytes.
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let length = 4 + value.count
        var out = le(UInt16(length)) + le(type) + value
        while out.count % 4 != 0 { out.append(0) }
        return out
    }

    static func attribute(_ type: UInt16, u32 value: UInt32) -> [UInt8] { attribute(type, le(value)) }
    static func attribute(_ type: UInt16, string: String) -> [UInt8] { attribute(type, Array(string.utf8) + [0]) }

    /// Appends a message of `type` with `body` (family header and attributes).
    mutating func message(_ type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, _ body: [UInt8]) {
        let length = 16 + body.count
        bytes += Self.le(UInt32(length)) + Self.le(type) + Self.le(flags) + Self.le(sequence) + Self.le(UInt32(0)) + body
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    /// `ifinfomsg`.
    static func link(index: Int32, type: UInt16 = 1, flags: UInt32) -> [UInt8] {
        [0, 0] + le(type) + le(UInt32(bitPattern: index)) + le(flags) + le(UInt32(0))
    }

    /// `ifaddrmsg`.
    static func address(family: UInt8, prefix: UInt8, flags: UInt8 = 0, scope: UInt8 = 0, index: Int32) -> [UInt8] {
        [family, prefix, flags, scope] + le(UInt32(bitPattern: index))
    }

    /// `rtmsg`.
    static func route(family: UInt8, destinationLength: UInt8 = 0, table: UInt8 = 254, type: UInt8 = 1) -> [UInt8] {
        [family, destinationLength, 0, 0, table, 3, 0, type] + le(UInt32(0))
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

@Suite("ConnectionMonitor: netlink parser")
struct ConnectionMonitorParserTests {
    typealias B = NetlinkBytes

    /// A dump-like datagram: a link, two addresses, two routes, a multipath route, then DONE.
    static var sample: [UInt8] {
        var d = NetlinkBytes()
        d.message(Netlink.newLink, flags: 2, sequence: 7,
                  B.link(index: 2, flags: 0x1_0043) + B.attribute(3, string: "eth0") + B.attribute(16, [6])
                  + B.attribute(18 | 0x8000, B.attribute(1, string: "veth")))
        d.message(Netlink.newAddress, flags: 2, sequence: 7,
                  B.address(family: 2, prefix: 24, index: 2) + B.attribute(1, [10, 0, 0, 2]) + B.attribute(2, [10, 0, 0, 2]))
        d.message(Netlink.newAddress, sequence: 0,
                  B.address(family: 10, prefix: 64, flags: 0x40, index: 2)
                  + B.attribute(1, [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1])
                  + B.attribute(8, u32: 0x240))
        d.message(Netlink.newRoute, sequence: 7,
                  B.route(family: 2) + B.attribute(15, u32: 254) + B.attribute(5, [10, 0, 0, 1])
                  + B.attribute(6, u32: 100) + B.attribute(4, u32: 2))
        d.message(Netlink.deleteRoute, sequence: 0, B.route(family: 10, table: 252) + B.attribute(15, u32: 1000))
        let hop = { (index: Int32) in B.le(UInt16(8)) + [0, 0] + B.le(UInt32(bitPattern: index)) }
        d.message(Netlink.newRoute, sequence: 7, B.route(family: 2) + B.attribute(9, hop(2) + hop(3)))
        d.message(Netlink.messageDone, flags: 2 | 0x10, sequence: 7, B.le(Int32(0)))
        return d.bytes
    }

    @Test func readsEachFamilyAndItsAttributes() {
        let items = NetlinkParser.items(in: Self.sample)
        #expect(items.count == 7)
        guard items.count == 7 else { return }
        #expect(items[0] == NetlinkItem(message: .link(NetlinkLink(index: 2, hardwareType: 1, flags: 0x1_0043, name: "eth0",
                                                                   operationalState: 6, driverKind: "veth"), deleted: false),
                                        sequence: 7, interrupted: false))
        #expect(items[1].message == .address(NetlinkAddress(family: 2, prefixLength: 24, scope: 0, index: 2, flags: 0,
                                                            address: [10, 0, 0, 2]), deleted: false))
        guard case .address(let v6, false) = items[2].message else { Issue.record("not an address: \(items[2])"); return }
        #expect(v6.flags == 0x240, "IFA_FLAGS wins over the byte in the header")
        #expect(v6.address.count == 16)
        #expect(items[3].message == .route(NetlinkRoute(family: 2, destinationLength: 0, tos: 0, table: 254, type: 1,
                                                        priority: 100, gateway: [10, 0, 0, 1], outputInterfaces: [2]),
                                           deleted: false))
        guard case .route(let deleted, true) = items[4].message else { Issue.record("not a deletion: \(items[4])"); return }
        #expect(deleted.table == 1000, "RTA_TABLE wins over the byte in the header")
        guard case .route(let multipath, false) = items[5].message else { Issue.record("not a route: \(items[5])"); return }
        #expect(multipath.outputInterfaces == [2, 3])
        #expect(items[6] == NetlinkItem(message: .done, sequence: 7, interrupted: true))
    }

    @Test func readsErrorsAndSkipsUnknownTypes() {
        var d = NetlinkBytes()
        d.message(1, B.le(UInt32(0)))                                     // NLMSG_NOOP
        d.message(Netlink.messageError, sequence: 9, B.le(Int32(-16)) + Array(repeating: 0, count: 16))
        d.message(Netlink.newLink, B.link(index: 1, flags: 0).prefix(10).map { $0 })  // shorter than ifinfomsg
        d.message(Netlink.newAddress, B.address(family: 2, prefix: 8, index: 1))       // no address attribute
        d.message(Netlink.messageDone, B.le(Int32(0)))
        let items = NetlinkParser.items(in: d.bytes)
        #expect(items.map(\.message) == [.error(code: -16), .done])
    }

    @Test func everyTruncationParsesAPrefixAndNeverCrashes() {
        let whole = NetlinkParser.items(in: Self.sample)
        for length in 0...Self.sample.count {
            let items = NetlinkParser.items(in: Array(Self.sample.prefix(length)))
            #expect(items.count <= whole.count)
            #expect(Array(whole.prefix(items.count)) == items, "a cut at \(length) changed what came before it")
        }
    }

    @Test func unalignedBytesParseTheSame() {
        let shifted = [0xAA] + Self.sample
        let items = shifted.withUnsafeBytes { NetlinkParser.items(in: UnsafeRawBufferPointer(rebasing: $0[1...])) }
        #expect(items == NetlinkParser.items(in: Self.sample))
    }

    @Test func impossibleLengthsEndTheWalk() {
        var zero = NetlinkBytes()
        zero.message(Netlink.messageDone, B.le(Int32(0)))
        var bytes = zero.bytes
        bytes.replaceSubrange(0..<4, with: B.le(UInt32(0)))                // a zero length: no endless loop
        #expect(NetlinkParser.items(in: bytes).isEmpty)
        bytes.replaceSubrange(0..<4, with: B.le(UInt32.max))                // past the end
        #expect(NetlinkParser.items(in: bytes).isEmpty)

        // An attribute claiming more than its message holds ends that message's attributes, not the message.
        var d = NetlinkBytes()
        d.message(Netlink.newLink, B.link(index: 4, flags: 1) + B.attribute(3, string: "wg0") + B.le(UInt16(200)) + B.le(UInt16(16)))
        let items = NetlinkParser.items(in: d.bytes)
        #expect(items.map(\.message) == [.link(NetlinkLink(index: 4, hardwareType: 1, flags: 1, name: "wg0"), deleted: false)])
    }

    @Test func randomGarbageAndMutationsNeverCrash() {
        var random = SplitMix64(seed: 0x6E65_746C_696E_6B)
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<256, using: &random)
            let garbage = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = NetlinkParser.items(in: garbage)
        }
        // Flipped bytes of a real datagram: lengths and types go wrong everywhere.
        for _ in 0..<2000 {
            var bytes = Self.sample
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = NetlinkParser.items(in: bytes)
        }
    }
}
