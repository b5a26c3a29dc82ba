/// An address a socket connects to or listens on: IPv4, IPv6 or a Unix domain socket path.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Hashable, Sendable { case ipv4, ipv6, unix }

    /// The address family.
    public let family: Family
    /// The IP address in network byte order: 4 bytes for IPv4, 16 for IPv6; empty for Unix.
    public let ipBytes: [UInt8]
    /// The TCP port (0 for Unix sockets).
    public let port: Int
    /// The IPv6 scope (interface index) of a link-local address, else 0.
    public let scopeID: UInt32
    /// The file system path of a Unix domain socket, else nil.
    public let path: String?

    /// An IPv4 address from its four bytes.
    public static func ipv4(_ bytes: [UInt8], port: Int) -> SocketAddress {
        precondition(bytes.count == 4, "an IPv4 address has 4 bytes")
        return SocketAddress(family: .ipv4, ipBytes: bytes, port: port, scopeID: 0, path: nil)
    }

    /// An IPv6 address from its sixteen bytes.
    public static func ipv6(_ bytes: [UInt8], port: Int, scopeID: UInt32 = 0) -> SocketAddress {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        return SocketAddress(family: .ipv6, ipBytes: bytes, port: port, scopeID: scopeID, path: nil)
    }

    /// A Unix domain socket at `path`.
    public static func unix(path: String) -> SocketAddress {
        SocketAddress(family: .unix, ipBytes: [], port: 0, scopeID: 0, path: path)
    }

    /// Parses an IP literal (`127.0.0.1`, `::1`, `[::1]`, `fe80::1%2`); nil if `host` is a name.
    public init?(ipLiteral host: String, port: Int) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = Self.parseIPv4(text) {
            self = .ipv4(v4, port: port)
        } else if let (v6, scope) = Self.parseIPv6(text) {
            self = .ipv6(v6, port: port, scopeID: scope)
        } else {
            return nil
        }
    }

    /// The same address with another port (a Unix address is returned as it is).
    func with(port: Int) -> SocketAddress {
        family == .unix ? self : SocketAddress(family: family, ipBytes: ipBytes, port: port, scopeID: scopeID, path: nil)
    }

    private init(family: Family, ipBytes: [UInt8], port: Int, scopeID: UInt32, path: String?) {
        self.family = family
        self.ipBytes = ipBytes
        self.port = port
        self.scopeID = scopeID
        self.path = path
    }

    /// The address without its port, as text (`127.0.0.1`, `::1`, or the Unix path).
    public var host: String {
        switch family {
        case .ipv4: return ipBytes.map(String.init).joined(separator: ".")
        case .ipv6: return Self.formatIPv6(ipBytes)
        case .unix: return path ?? ""
        }
    }

    public var description: String {
        switch family {
        case .ipv4: "\(host):\(port)"
        case .ipv6: "[\(host)]:\(port)"
        case .unix: "unix:\(path ?? "")"
        }
    }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: ipBytes[0] == 127
        case .ipv6: ipBytes == Array(repeating: 0, count: 15) + [1]
        case .unix: false
        }
    }

    // MARK: Parsing, in Swift so that no C buffer handling is needed here.

    static func parseIPv4<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                  let value = UInt8(part), !(part.count > 1 && part.first == "0") else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6<S: StringProtocol>(_ text: S) -> ([UInt8], UInt32)? {
        var body = Substring(text)
        var scope: UInt32 = 0
        if let percent = body.firstIndex(of: "%") {
            guard let value = UInt32(body[body.index(after: percent)...]) else { return nil }
            scope = value
            body = body[..<percent]
        }
        guard body.contains(":") else { return nil }
        // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
        var tail: [UInt16] = []
        if let lastColon = body.lastIndex(of: ":"), body[body.index(after: lastColon)...].contains(".") {
            guard let v4 = parseIPv4(body[body.index(after: lastColon)...]) else { return nil }
            tail = [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
            body = body[...lastColon]
            if body.hasSuffix(":") && !body.hasSuffix("::") { body = body.dropLast() }
        }
        func groups(_ s: Substring) -> [UInt16]? {
            if s.isEmpty { return [] }
            var out: [UInt16] = []
            for g in s.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(g.count), let v = UInt16(g, radix: 16) else { return nil }
                out.append(v)
            }
            return out
        }
        var words: [UInt16]
        let halves = body.components(separatedBy: "::")
        if halves.count == 2 {
            guard let head = groups(Substring(halves[0])), let rest = groups(Substring(halves[1])) else { return nil }
            let missing = 8 - head.count - rest.count - tail.count
            guard missing >= 1 else { return nil }
            words = head + Array(repeating: 0, count: missing) + rest + tail
        } else if halves.count == 1 {
            guard let all = groups(body) else { return nil }
            words = all + tail
        } else {
            return nil
        }
        guard words.count == 8 else { return nil }
        return (words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }, scope)
    }

    static func formatIPv6(_ bytes: [UInt8]) -> String {
        let words = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        // RFC 5952: compress the longest run (of two or more) of zero groups.
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (i, w) in words.enumerated() {
            if w == 0 {
                run = run.start < 0 ? (i, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let hex = words.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}

extension StringProtocol {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
