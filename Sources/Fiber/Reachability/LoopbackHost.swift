#if canImport(Glibc)
import Glibc
#endif

/// Which hosts never leave the machine: requests to them are sent whatever a
/// `ConnectionMonitor` says, as loopback needs no default route.
enum LoopbackHost {
    /// True for `localhost` and names under `.localhost` (RFC 6761), any address of
    /// 127.0.0.0/8, `::1`, and 127.0.0.0/8 mapped into IPv6 (`::ffff:127.0.0.1`).
    /// `host` may carry IPv6 brackets and a trailing dot.
    static func contains(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.hasSuffix(".") { name = name.dropLast() }
        let lowered = name.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, lowered, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        // An IPv6 literal may carry a zone (`fe80::1%eth0`), which never is loopback.
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, lowered, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
    }
}
