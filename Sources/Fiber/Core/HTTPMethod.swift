/// An HTTP request method: the common ones as constants, any other by its name.
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
}
