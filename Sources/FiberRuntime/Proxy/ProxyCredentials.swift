import FoundationEssentials

/// A user name and password for a proxy: HTTP Basic (`Proxy-Authorization`)
/// or SOCKS5 username/password (RFC 1929). They go to the proxy only, never to
/// the origin, and are never printed: `description` says only that they are set.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable {
    /// The user name.
    public var username: String
    /// The password.
    public var password: String

    /// Credentials as given.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// "credentials set", never the name or password.
    public var description: String { "credentials set" }
    /// As `description`.
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show neither name nor password.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// The `Proxy-Authorization` value: `Basic` and base64 of `username:password`.
    var basicAuthorization: String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}
