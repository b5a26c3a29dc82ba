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
        let (fd, port, bound) = LoopbackSocket.bindAnyPort()
        self.fd = fd
        self.port = port
        listen(fd, 0)
        // One connection fills the queue of a backlog-0 listener.
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.filler = filler
        var address = bound
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    deinit {
        close(filler)
        close(fd)
    }
}
