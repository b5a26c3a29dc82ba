import FiberRuntime

extension WebSocketConfiguration {
    /// Checks that every value can work: sizes in range, durations positive,
    /// the receive watermarks with the low one below the high one, and the
    /// compression offer's window sizes within RFC 7692's 8-15. Every way of
    /// opening a connection runs it first (`WebSocketClient.connect` and
    /// `open`, `Fiber.webSocket`), so a value that cannot work fails the
    /// connection before anything connects.
    ///
    /// - Throws: `WebSocketError` `.invalidConfiguration` naming the first setting that cannot work.
    public func validate() throws(WebSocketError) {
        // A close frame with a reason, or a ping, may carry 125 bytes: a smaller limit fails legal frames.
        try Self.require(maxFrameSize >= 125, "maxFrameSize must be at least 125 (a control frame's largest), not \(maxFrameSize)")
        try Self.require(maxMessageSize >= 1, "maxMessageSize must be at least 1, not \(maxMessageSize)")
        try Self.require(maxOutgoingFrameSize >= 1, "maxOutgoingFrameSize must be at least 1, not \(maxOutgoingFrameSize)")
        try Self.positive(connectTimeout, "connectTimeout")
        try Self.positive(closeTimeout, "closeTimeout")
        if let pingInterval { try Self.positive(pingInterval, "pingInterval") }
        try Self.positive(pingTimeout, "pingTimeout")
        try Self.require(receiveLowWatermark >= 0 && receiveLowWatermark < receiveHighWatermark,
                         "receiveLowWatermark must be at least 0 and below receiveHighWatermark (\(receiveHighWatermark)), not \(receiveLowWatermark)")
        if let compression {
            for (name, bits) in [("clientMaxWindowBits", compression.clientMaxWindowBits), ("serverMaxWindowBits", compression.serverMaxWindowBits)] {
                if let bits { try Self.require((8...15).contains(bits), "compression.\(name) must be 8-15, not \(bits)") }
            }
            try Self.require(compression.minimumSizeToCompress >= 0,
                             "compression.minimumSizeToCompress must not be negative (\(compression.minimumSizeToCompress))")
        }
        do throws(HTTPClient.ConfigurationError) {
            try proxy.validate()
        } catch {
            throw WebSocketError(.invalidConfiguration, "\(error.setting) \(error.reason)")
        }
    }

    /// The longest duration the loop's timers take (they count milliseconds in 64 bits).
    private static let longestTimer = Duration.seconds(1_000_000_000_000_000)

    private static func positive(_ duration: Duration, _ name: String) throws(WebSocketError) {
        try require(duration > .zero && duration <= longestTimer,
                    "\(name) must be longer than zero and at most \(longestTimer), not \(duration)")
    }

    private static func require(_ holds: Bool, _ message: @autoclosure () -> String) throws(WebSocketError) {
        if !holds { throw WebSocketError(.invalidConfiguration, message()) }
    }
}
