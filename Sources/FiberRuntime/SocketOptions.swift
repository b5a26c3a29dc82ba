/// How a socket connects and behaves once connected.
public struct SocketOptions: Sendable, Hashable {
    /// Give up connecting after this long, across all addresses. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Happy Eyeballs: how long one address gets before the next is tried beside it. Default 250 ms (RFC 8305).
    public var attemptDelay: Duration = .milliseconds(250)
    /// Disable Nagle's algorithm (TCP_NODELAY). Default on: requests leave at once.
    public var noDelay = true
    /// TCP keep-alive probes after this much idle time; nil (the default) leaves them off.
    public var keepAlive: Duration? = nil
    /// Stop reading the socket when this many received bytes wait for the consumer. Default 256 KiB.
    public var readHighWatermark = 256 * 1024
    /// Resume reading once the consumer brings the backlog down to this. Default 64 KiB.
    public var readLowWatermark = 64 * 1024

    /// The defaults above.
    public init() {}
}
