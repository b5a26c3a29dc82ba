/// Where the time of one request went, each phase measured from the request's start.
public struct RequestTiming: Sendable, Hashable, CustomStringConvertible {
    /// Name resolution (nil on a reused connection or an IP literal).
    public var dns: Duration?
    /// TCP connect, Happy Eyeballs included (nil on a reused connection).
    public var connect: Duration?
    /// TLS handshake (nil for plain HTTP or a reused connection).
    public var tls: Duration?
    /// Waiting for a connection from the pool (nil if one was idle).
    public var poolWait: Duration?
    /// When the last byte of the request was handed to the kernel.
    public var requestWritten: Duration = .zero
    /// When the first byte of the response arrived.
    public var firstByte: Duration = .zero
    /// When the response was complete.
    public var total: Duration = .zero
    /// True when the request went over a connection that served an earlier one.
    public var reusedConnection = false

    public init() {}

    public var description: String {
        func ms(_ d: Duration?) -> String {
            guard let d else { return "-" }
            return String(d.seconds * 1000) + " ms"
        }
        return "dns \(ms(dns)), connect \(ms(connect)), tls \(ms(tls)), written \(ms(requestWritten)), "
            + "first byte \(ms(firstByte)), total \(ms(total))\(reusedConnection ? " (reused connection)" : "")"
    }
}
