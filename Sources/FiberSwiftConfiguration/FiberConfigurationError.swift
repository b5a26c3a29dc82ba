/// A configuration value that Fiber cannot use, naming the key it was read from:
/// a value of the wrong type, a duration that is zero, negative or not finite, a
/// word that is not one of the key's, a malformed header or pin, or a combination
/// that cannot work. Thrown at start-up by the `init(configReader:)` initializers,
/// never ignored: a key that is absent keeps its default, one that is present must be right.
public struct FiberConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key, dot-separated, relative to the reader given to the initializer
    /// (`"http.tls.verification"` for `Fiber.Configuration(configReader:)`).
    public let key: String
    /// What the value must be, and what was wrong with it.
    public let reason: String

    /// An error for `key`.
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    /// "configuration key `key` `reason`".
    public var description: String { "configuration key \(key) \(reason)" }
}
