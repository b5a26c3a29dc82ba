import Configuration

// Every duration is a number of seconds, with a fraction when needed (0.25):
// one unit for every key, the unit of `Fiber.Configuration.timeout` and of
// `FiberRequest.timeout(_:)`, written the same way in JSON and in the environment.
extension StrictConfigReader {
    /// The longest duration taken, in seconds: the runtime's timers count
    /// milliseconds in 64 bits (`HTTPClient.ConfigurationError`'s bound).
    static let longestSeconds = 1e15

    /// A duration in seconds, longer than zero (or zero too, when `zeroAllowed`).
    ///
    /// - Throws: `FiberConfigurationError` for anything but a number, or one that is
    ///   negative, zero (unless allowed), not finite or past `longestSeconds`.
    func seconds(_ key: String, zeroAllowed: Bool = false) throws(FiberConfigurationError) -> Double? {
        guard let seconds = try number(key, expected: "a number of seconds") else { return nil }
        guard seconds.isFinite, seconds > 0 || zeroAllowed && seconds == 0, seconds <= Self.longestSeconds else {
            throw error(key, "must be a number of seconds \(zeroAllowed ? "from zero" : "above zero") "
                        + "and at most 10^15, not \(seconds)")
        }
        return seconds
    }

    /// A duration in seconds as a `Duration`.
    ///
    /// - Throws: as `seconds(_:zeroAllowed:)`.
    func duration(_ key: String, zeroAllowed: Bool = false) throws(FiberConfigurationError) -> Duration? {
        try seconds(key, zeroAllowed: zeroAllowed).map { .seconds($0) }
    }

    /// A duration in seconds, or the word `none` for no limit: nil when the key is
    /// absent, `.some(nil)` for `none`.
    ///
    /// - Throws: as `seconds(_:zeroAllowed:)`, naming `none` as the other choice.
    func secondsOrNone(_ key: String) throws(FiberConfigurationError) -> Double?? {
        if reader.string(forKey: ConfigKey(key)) == "none" {
            presence.found = true
            return .some(nil)
        }
        do {
            return try seconds(key).map { .some($0) }
        } catch {
            throw FiberConfigurationError(key: error.key, reason: error.reason + " (or \"none\" for no limit)")
        }
    }

    /// `secondsOrNone(_:)` as a `Duration`.
    ///
    /// - Throws: as `secondsOrNone(_:)`.
    func durationOrNone(_ key: String) throws(FiberConfigurationError) -> Duration?? {
        try secondsOrNone(key).map { $0.map { .seconds($0) } }
    }
}
