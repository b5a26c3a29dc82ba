import Foundation

/// A cookie as a `CookieStore` keeps it (RFC 6265 §5.3): what the server set, where it
/// applies, until when, and when it was made and last sent.
public struct Cookie: Sendable, Hashable, Codable {
    /// RFC 6265bis's `SameSite` attribute, kept as the server sent it. The client does
    /// not apply it: every request is sent as a same-site one (see `Docs/Cookies.md`).
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`.
        case none
    }

    /// The cookie's name.
    public let name: String
    /// Its value, as the server sent it.
    public let value: String
    /// The host (a host-only cookie) or the domain it applies to, in lower case.
    public let domain: String
    /// Sent only to requests whose path is this one or below it.
    public let path: String
    /// When it expires; nil for a session cookie, which lives as long as its store.
    public let expires: Date?
    /// Sent only over `https` and `wss`.
    public let isSecure: Bool
    /// Marked `HttpOnly` (kept; it changes nothing here, as no script reads cookies).
    public let isHTTPOnly: Bool
    /// Sent only to `domain` itself (no `Domain` attribute was given), not to its subdomains.
    public let isHostOnly: Bool
    /// The `SameSite` attribute, if one was given and understood.
    public let sameSite: SameSite?
    /// When the first cookie of this name, domain and path was stored (a replacement keeps it).
    public let created: Date
    /// When it was stored or last sent.
    public internal(set) var lastAccessed: Date
    /// Stored cookies in the order they were created: equal `created` dates break ties by it.
    let creationOrder: UInt64
    /// The same for `lastAccessed`: the least recently used cookie has the smallest.
    var accessOrder: UInt64

    init(name: String, value: String, domain: String, path: String, expires: Date?, isSecure: Bool, isHTTPOnly: Bool,
         isHostOnly: Bool, sameSite: SameSite?, created: Date, creationOrder: UInt64, accessed: Date, accessOrder: UInt64) {
        self.name = name; self.value = value; self.domain = domain; self.path = path; self.expires = expires
        self.isSecure = isSecure; self.isHTTPOnly = isHTTPOnly; self.isHostOnly = isHostOnly; self.sameSite = sameSite
        self.created = created; self.creationOrder = creationOrder; self.lastAccessed = accessed; self.accessOrder = accessOrder
    }

    /// Whether it has expired at `now`.
    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// This cookie with the creation date and order of `old`, which it replaces (§5.3 step 11.3).
    func keepingCreation(of old: Cookie) -> Cookie {
        Cookie(name: name, value: value, domain: domain, path: path, expires: expires, isSecure: isSecure,
               isHTTPOnly: isHTTPOnly, isHostOnly: isHostOnly, sameSite: sameSite, created: old.created,
               creationOrder: old.creationOrder, accessed: lastAccessed, accessOrder: accessOrder)
    }

    /// Whether it is the same cookie as `other`: the same name, domain and path (§5.3 step 11).
    func replaces(_ other: Cookie) -> Bool { name == other.name && domain == other.domain && path == other.path }

    /// The bytes it counts against the size limit: its name and value.
    var size: Int { name.utf8.count + value.utf8.count }
}
