/// The hosts that bypass a proxy: a `NO_PROXY` value, parsed once.
///
/// Entries are separated by commas or whitespace, and matched without regard to case:
/// - `*` alone: every host;
/// - a domain name, `example.com` or `.example.com` (and `*.example.com`): that
///   host and every host under it, as curl matches them;
/// - an IP literal (`127.0.0.1`, `::1`, `[::1]`): that address, written as a literal in the URL;
/// - a CIDR range (`10.0.0.0/8`, `fd00::/8`): IP literals inside it;
/// - any of these with `:port`: only requests to that port.
///
/// Names are never resolved to match an IP entry: `localhost` is not `127.0.0.1`.
public struct NoProxyList: Sendable, Hashable {
    enum Pattern: Hashable, Sendable {
        case domain(String)
        case address([UInt8], prefix: Int)
    }

    struct Entry: Hashable, Sendable {
        var pattern: Pattern
        var port: Int?
    }

    /// True for `*`.
    private(set) var matchesEverything = false
    private(set) var entries: [Entry] = []

    /// No host bypasses the proxy.
    public init() {}

    /// Parses a `NO_PROXY` value; entries that cannot be read are skipped (as curl and Go skip them).
    public init(_ text: String) {
        for raw in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }) {
            let item = raw.lowercased()
            if item == "*" { matchesEverything = true; continue }
            if let entry = NoProxyList.entry(item) { entries.append(entry) }
        }
    }

    /// True when no entry was read.
    public var isEmpty: Bool { !matchesEverything && entries.isEmpty }

    /// Whether a request to `host`:`port` goes direct.
    public func bypasses(host: String, port: Int) -> Bool {
        if matchesEverything { return true }
        guard !entries.isEmpty else { return false }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        let address = NoProxyList.ipBytes(name)
        return entries.contains { entry in
            if let wanted = entry.port, wanted != port { return false }
            switch entry.pattern {
            case .domain(let domain):
                return address == nil && (name == domain || name.hasSuffix("." + domain))
            case .address(let network, let prefix):
                guard let address, address.count == network.count else { return false }
                return NoProxyList.prefix(prefix, of: address, equals: network)
            }
        }
    }

    private static func entry(_ item: String) -> Entry? {
        var text = Substring(item)
        var port: Int?
        // `[v6]:port`, `[v6]`, `host:port`; a bare IPv6 literal has more than one colon.
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            } else if !after.isEmpty {
                return nil
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            guard let p = Int(text[text.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            text = text[..<colon]
        }
        var prefixLength: Int?
        if let slash = text.firstIndex(of: "/") {
            guard let n = Int(text[text.index(after: slash)...]) else { return nil }
            prefixLength = n
            text = text[..<slash]
        }
        if let bytes = ipBytes(String(text)) {
            let length = prefixLength ?? bytes.count * 8
            guard (0...bytes.count * 8).contains(length) else { return nil }
            return Entry(pattern: .address(bytes, prefix: length), port: port)
        }
        guard prefixLength == nil else { return nil }
        var domain = String(text)
        if domain.hasPrefix("*.") { domain.removeFirst(2) } else if domain.hasPrefix(".") { domain.removeFirst() }
        if domain.hasSuffix(".") { domain.removeLast() }
        guard !domain.isEmpty, !domain.contains("*") else { return nil }
        return Entry(pattern: .domain(domain), port: port)
    }

    private static func ipBytes(_ text: String) -> [UInt8]? {
        if let v4 = SocketAddress.parseIPv4(text) { return v4 }
        if text.contains(":"), let (v6, _) = SocketAddress.parseIPv6(text) { return v6 }
        return nil
    }

    private static func prefix(_ bits: Int, of address: [UInt8], equals network: [UInt8]) -> Bool {
        var remaining = bits
        for (a, n) in zip(address, network) where remaining > 0 {
            let take = min(8, remaining)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if a & mask != n & mask { return false }
            remaining -= take
        }
        return true
    }
}
