#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Conversions between `SocketAddress` and C `sockaddr` structures.
extension SocketAddress {
    /// Calls `body` with a `sockaddr` for this IP address (not for Unix paths).
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>) throws -> R) rethrows -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: ipBytes) }
            return try withUnsafePointer(to: &sin) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            sin6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: ipBytes) }
            return try withUnsafePointer(to: &sin6) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .unix:
            preconditionFailure("Unix socket addresses have no sockaddr_in form")
        }
    }

    /// Reads an IPv4 or IPv6 `sockaddr`; nil for other families.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            let bytes = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
            self = .ipv4(bytes, port: Int(UInt16(bigEndian: sin.sin_port)))
        case AF_INET6:
            let sin6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
            self = .ipv6(bytes, port: Int(UInt16(bigEndian: sin6.sin6_port)), scopeID: sin6.sin6_scope_id)
        default:
            return nil
        }
    }
}
