import FiberRuntime

/// An HTTP request method: the common ones as constants, any other by its name.
///
/// | Method | Safe | Idempotent | Cacheable |
/// | --- | :-: | :-: | :-: |
/// | GET, HEAD | yes | yes | yes |
/// | OPTIONS, TRACE | yes | yes | no |
/// | PUT, DELETE | no | yes | no |
/// | POST, PATCH, CONNECT | no | no | no |
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the request line, such as `GET`.
    public let rawValue: String

    /// A method named `rawValue` (sent as given; methods are case-sensitive).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A method from a literal: `let purge: HTTPMethod = "PURGE"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The method's name.
    public var description: String { rawValue }

    /// `GET`.
    public static let get: HTTPMethod = "GET"
    /// `HEAD`.
    public static let head: HTTPMethod = "HEAD"
    /// `POST`.
    public static let post: HTTPMethod = "POST"
    /// `PUT`.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    public static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`.
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`.
    public static let trace: HTTPMethod = "TRACE"
    /// `CONNECT`.
    public static let connect: HTTPMethod = "CONNECT"

    /// Whether the method only reads (RFC 9110 §9.2.1): GET, HEAD, OPTIONS, TRACE.
    public var isSafe: Bool { HTTPClientRequest.isSafe(rawValue) }

    /// Whether sending the request twice has the effect of sending it once (RFC 9110
    /// §9.2.2): the safe methods, PUT and DELETE. What a client may retry on its own.
    public var isIdempotent: Bool { HTTPClientRequest.isIdempotent(rawValue) }

    /// Whether a response to the method is stored by a cache without being told to
    /// (GET and HEAD; RFC 9111 allows POST only with explicit freshness, which Fiber's cache does not take).
    public var isCacheable: Bool { self == .get || self == .head }
}
