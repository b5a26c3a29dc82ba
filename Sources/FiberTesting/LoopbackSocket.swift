#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks: the common
/// start of the test peers that must hold a port without serving it.
enum LoopbackSocket {
    /// A new socket bound to 127.0.0.1:0, its port and the bound address.
    static func bindAnyPort() -> (fd: Int32, port: Int, address: sockaddr_in) {
        // Close-on-exec: a child process (nginx, a Python peer) must not keep the port after the value goes.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0, "socket failed: errno \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        precondition(bound == 0, "bind to 127.0.0.1:0 failed: errno \(errno)")
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)), address)
    }
}

extension LoopbackSocket {
    /// 127.0.0.1:`port` as a `sockaddr_in`.
    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port` now.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = address(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
