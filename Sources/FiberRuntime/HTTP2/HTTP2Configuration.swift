/// How the client runs its HTTP/2 connections.
public struct HTTP2Configuration: Sendable, Hashable {
    /// The most streams the client opens at once on one connection, below the
    /// server's `SETTINGS_MAX_CONCURRENT_STREAMS` (default 1000). When every
    /// connection is full, the pool opens another, up to `maxConnectionsPerHost`.
    public var maxConcurrentStreams = 1000
    /// The flow-control window of each stream (default 1 MiB): how much of one
    /// response the server may send before the client has read it. A streamed
    /// body whose consumer stops reading stops its own stream here, never the
    /// connection's other streams.
    public var streamWindowSize = 1 << 20
    /// The flow-control window of the whole connection (default 16 MiB).
    public var connectionWindowSize = 16 << 20
    /// An idle connection (no streams) sends a PING after this long, and closes
    /// when its acknowledgement does not come within `pingTimeout` (default 30 s;
    /// nil: no PINGs, idle connections are closed only by the pool's idle timeout).
    public var pingInterval: Duration? = .seconds(30)
    /// How long a PING may wait for its acknowledgement (default 10 s).
    public var pingTimeout: Duration = .seconds(10)
    /// PING, SETTINGS and RST_STREAM frames the server may send within ten
    /// seconds (default 1000). One more closes the connection with `.http2`
    /// `ENHANCE_YOUR_CALM`: a flood of control frames costs the client work
    /// for nothing.
    public var maxControlFramesPer10Seconds = 1000
    /// CONTINUATION frames accepted after one HEADERS frame (default 8). Header
    /// blocks within the header size limit fit in far fewer; a flood of them
    /// fails the connection.
    public var maxContinuationFrames = 8

    /// The defaults above.
    public init() {}

    /// Checks the values as `HTTPClient.Configuration.validate()` does.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` naming the first value that cannot work.
    func validate() throws(HTTPClient.ConfigurationError) {
        typealias Check = HTTPClient.ConfigurationError
        try Check.require(maxConcurrentStreams >= 1, "http2.maxConcurrentStreams", "must be at least 1, not \(maxConcurrentStreams)")
        let windowRange = 65_535...Int(Int32.max)
        try Check.require(windowRange.contains(streamWindowSize), "http2.streamWindowSize",
                          "must be within \(windowRange), not \(streamWindowSize)")
        try Check.require(windowRange.contains(connectionWindowSize), "http2.connectionWindowSize",
                          "must be within \(windowRange), not \(connectionWindowSize)")
        try Check.positive(pingInterval, "http2.pingInterval")
        try Check.positive(pingTimeout, "http2.pingTimeout")
        try Check.require(maxControlFramesPer10Seconds >= 1, "http2.maxControlFramesPer10Seconds",
                          "must be at least 1, not \(maxControlFramesPer10Seconds)")
        try Check.require(maxContinuationFrames >= 0, "http2.maxContinuationFrames",
                          "must not be negative (\(maxContinuationFrames))")
    }
}
