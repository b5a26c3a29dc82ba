#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value
/// lives: a socket bound to it that never listens, so the kernel answers each
/// SYN with a reset and no other test can start a server on the port.
///
/// A port taken from a server that was just shut down is not enough: in a
/// parallel test run another test's server may be given the same port at once.
public final class RefusingPort: Sendable {
    private let fd: Int32
    /// The port on 127.0.0.1 whose connects are refused.
    public let port: Int

    /// Binds 127.0.0.1 on a free port, without listening.
    public init() {
        (fd, port, _) = LoopbackSocket.bindAnyPort()
    }

    deinit { close(fd) }
}
