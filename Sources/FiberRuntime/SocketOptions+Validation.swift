extension SocketOptions {
    /// Checks that every option can work: a positive connect timeout and a
    /// Happy Eyeballs delay the loop's timers can count, a keep-alive idle
    /// time TCP takes (1 s to 32767 s), and read watermarks with 0 ≤ low < high.
    /// `SocketStream.connect` and `HTTPClient` check it before anything opens.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` naming the first option that
    ///   cannot work, spelled as in `HTTPClient.Configuration` (`socket.keepAlive`).
    public func validate() throws(HTTPClient.ConfigurationError) {
        typealias Check = HTTPClient.ConfigurationError
        try Check.positive(connectTimeout, "socket.connectTimeout")
        try Check.require(attemptDelay >= .zero && attemptDelay <= Check.longestTimer, "socket.attemptDelay",
                          "must be between zero and \(Check.longestTimer), not \(attemptDelay)")
        if let keepAlive {
            // TCP_KEEPIDLE takes whole seconds, at most 32767 on Linux.
            try Check.require(keepAlive > .zero && keepAlive <= .seconds(32767), "socket.keepAlive",
                              "must be between zero (excluded) and 32767 s, not \(keepAlive)")
        }
        try Check.watermarks(low: readLowWatermark, high: readHighWatermark, "socket.readLowWatermark", "socket.readHighWatermark")
    }
}
