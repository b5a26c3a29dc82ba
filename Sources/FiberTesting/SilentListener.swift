#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener whose accept queue is full, so that new connects to it
/// hang (the kernel drops their SYNs): a silent peer for connect-timeout and
/// Happy Eyeballs tests, with no traffic leaving the machine.
public final class SilentListener: Sendable {
    private let fd: Int32
    private let filler: Int32
    /// The port on 127.0.0.1 whose connects hang.
    public let port: Int

    /// Binds 127.0.0.1 on a free port with a backlog of zero and fills that backlog.
    public init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        listen(fd, 0)
        var length = size
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        // One connection fills the queue of a backlog-0 listener.
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.filler = filler
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, size) } }
    }

    deinit {
        close(filler)
        close(fd)
    }
}
