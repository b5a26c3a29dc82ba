import FiberRuntime
import Foundation

/// RFC 6265's storage model as a value: which `Set-Cookie` lines are kept (§5.3), which
/// cookies a request gets (§5.4), and what is evicted past the limits. No I/O and no
/// clock: every call takes the time. `CookieJar` is the thread-safe shell around one.
///
/// Decisions (see `Docs/Cookies.md`): a domain in `publicSuffixes` (the caller's list;
/// none is bundled) cannot be a cookie's `Domain`; an IP-address host gets host-only
/// cookies; a `Secure` cookie from an `http` response is refused, as browsers do; an
/// expiry is capped at 400 days (RFC 6265bis); `Max-Age` wins over `Expires`.
///
/// `Codable`, so a store can be saved and restored (`CookieJar.snapshot()`).
public struct CookieStore: Sendable, Codable {
    /// How many cookies are kept, and how large one may be.
    public struct Limits: Sendable, Hashable, Codable {
        /// Cookies kept per domain (the `domain` of each cookie, default 50); past it, that
        /// domain's expired cookies go first, then its least recently used.
        public var maxCookiesPerDomain: Int
        /// Cookies kept in all (default 3000); past it, expired cookies go first, then the
        /// least recently used.
        public var maxCookies: Int
        /// The largest cookie kept, its name and value in UTF-8 bytes (default 4096).
        public var maxCookieBytes: Int

        /// Limits as given; a limit below zero counts as zero (nothing is kept).
        public init(maxCookiesPerDomain: Int = 50, maxCookies: Int = 3000, maxCookieBytes: Int = 4096) {
            self.maxCookiesPerDomain = maxCookiesPerDomain
            self.maxCookies = maxCookies
            self.maxCookieBytes = maxCookieBytes
        }
    }

    /// Why a `Set-Cookie` line stored nothing.
    public enum Refusal: Sendable, Hashable {
        /// No `name=value` pair, an empty name, or a control byte or `;` in the name or value.
        case malformed
        /// Its name and value are larger than `Limits.maxCookieBytes`.
        case tooLarge
        /// Its `Domain` is one of `publicSuffixes` (and not the request's host itself).
        case publicSuffix
        /// Its `Domain` does not domain-match the request's host (or the host is an IP address).
        case domainMismatch
        /// A `Secure` cookie (or a `__Secure-`/`__Host-` name) from a response over `http`.
        case insecureOrigin
        /// A `__Host-` name without `Secure` and `Path=/`, or with a `Domain`.
        case invalidPrefix
    }

    /// What a `Set-Cookie` line did.
    public enum Outcome: Sendable, Hashable {
        /// The cookie was stored (replacing one of the same name, domain and path, if any).
        case stored
        /// It had expired already (`Max-Age` ≤ 0, or an `Expires` in the past): a cookie it
        /// would have replaced was removed, and nothing was stored.
        case deleted
        /// It was ignored, for this reason.
        case refused(Refusal)
    }

    /// The longest a cookie is kept (RFC 6265bis §5.6: 400 days).
    public static let maxLifetime: TimeInterval = 400 * 86_400

    /// The limits in force.
    public var limits: Limits
    /// Domains that may not be set as a cookie's `Domain` (`"com"`, `"co.uk"`), in lower
    /// case without a leading dot. No public suffix list is bundled: only these are refused.
    public var publicSuffixes: Set<String> {
        didSet { publicSuffixes = Set(publicSuffixes.map(Self.normalizedDomain)) }
    }
    /// The cookies of each domain.
    var byDomain: [String: [Cookie]] = [:]
    /// The number of cookies kept (expired ones included until they are removed).
    public internal(set) var count = 0
    /// The next creation or access order (both come from it, so they never repeat).
    var nextOrder: UInt64 = 0

    /// An empty store.
    public init(publicSuffixes: Set<String> = [], limits: Limits = Limits()) {
        self.publicSuffixes = Set(publicSuffixes.map(Self.normalizedDomain))
        self.limits = limits
    }

    /// Every cookie, expired ones included until they are removed, by domain, then as
    /// requests get them (longer paths first, then earlier created).
    public var cookies: [Cookie] {
        byDomain.keys.sorted().flatMap { byDomain[$0]!.sorted(by: Self.sendingOrder) }
    }

    /// Reads one `Set-Cookie` field value of a response from `target`, at `now`, and stores,
    /// replaces or deletes the cookie it sets (RFC 6265 §5.2 and §5.3).
    @discardableResult
    public mutating func receive(_ setCookie: String, from target: HTTPTarget, now: Date) -> Outcome {
        guard let parsed = SetCookie(setCookie) else { return .refused(.malformed) }
        guard parsed.name.utf8.count + parsed.value.utf8.count <= limits.maxCookieBytes else { return .refused(.tooLarge) }
        let host = CookieMatching.canonicalHost(target.host)
        let hostOnly: Bool
        switch parsed.domain {
        case nil:
            hostOnly = true
        case let domain? where domain == host:
            // A public suffix (or an IP address) may still set a cookie for itself alone.
            hostOnly = publicSuffixes.contains(host) || CookieMatching.isIPAddress(host)
        case let domain?:
            if publicSuffixes.contains(domain) { return .refused(.publicSuffix) }
            guard CookieMatching.domainMatches(host, domain) else { return .refused(.domainMismatch) }
            hostOnly = false
        }
        if let refusal = Self.prefixRefusal(parsed, hostOnly: hostOnly, secureOrigin: target.isSecure) {
            return .refused(refusal)
        }
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(TimeInterval(maxAge), Self.maxLifetime))
        } else if let date = parsed.expires {
            expires = min(date, now.addingTimeInterval(Self.maxLifetime))
        }
        let order = takeOrder()
        var cookie = Cookie(name: parsed.name, value: parsed.value, domain: hostOnly ? host : parsed.domain!,
                            path: parsed.path ?? CookieMatching.defaultPath(of: CookieMatching.path(of: target)),
                            expires: expires, isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly,
                            isHostOnly: hostOnly, sameSite: parsed.sameSite, created: now, creationOrder: order,
                            accessed: now, accessOrder: order)
        var list = byDomain[cookie.domain] ?? []
        if let old = list.firstIndex(where: cookie.replaces) {
            cookie = cookie.keepingCreation(of: list.remove(at: old))
        }
        let expired = cookie.isExpired(at: now)
        if !expired { list.append(cookie) }
        replace(cookie.domain, with: list)
        if expired { return .deleted }
        evict(over: cookie.domain, now: now)
        return .stored
    }

    /// The cookies a request to `target` sends at `now`, in the order of its `Cookie` field
    /// (§5.4: longer paths first, then earlier created); marks them used, and removes the
    /// expired cookies of the domains it looked at.
    public mutating func cookies(for target: HTTPTarget, now: Date) -> [Cookie] {
        let host = CookieMatching.canonicalHost(target.host)
        let path = CookieMatching.path(of: target)
        var found: [(domain: String, index: Int)] = []
        for domain in Self.candidateDomains(of: host) {
            removeExpired(in: domain, now: now)
            guard let list = byDomain[domain] else { continue }
            for (index, cookie) in list.enumerated()
            where (cookie.isHostOnly ? host == domain : true) && (!cookie.isSecure || target.isSecure)
                && CookieMatching.pathMatches(path, cookie.path) {
                found.append((domain, index))
            }
        }
        var sent: [Cookie] = []
        for (domain, index) in found {
            byDomain[domain]![index].lastAccessed = now
            byDomain[domain]![index].accessOrder = takeOrder()
            sent.append(byDomain[domain]![index])
        }
        return sent.sorted(by: Self.sendingOrder)
    }

    /// The `Cookie` field value for a request to `target` at `now`, or nil when no cookie
    /// applies (`cookies(for:now:)` joined as `name=value; name=value`).
    public mutating func cookieHeader(for target: HTTPTarget, now: Date) -> String? {
        let cookies = cookies(for: target, now: now)
        return cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Removes the cookies expired at `now`.
    public mutating func removeExpired(now: Date) {
        for domain in Array(byDomain.keys) { removeExpired(in: domain, now: now) }
    }

    /// Removes every cookie.
    public mutating func removeAll() {
        byDomain = [:]
        count = 0
    }

    /// Removes the session cookies (those without an expiry), as ending a browsing session does.
    public mutating func removeSessionCookies() {
        for (domain, list) in byDomain { replace(domain, with: list.filter { $0.expires != nil }) }
    }

    // MARK: Rules

    /// RFC 6265bis §4.1.3: what a `__Secure-` or `__Host-` name requires, and that a
    /// `Secure` cookie comes over a secure connection.
    private static func prefixRefusal(_ cookie: SetCookie, hostOnly: Bool, secureOrigin: Bool) -> Refusal? {
        let lowered = cookie.name.lowercased()
        let secureName = lowered.hasPrefix("__secure-") || lowered.hasPrefix("__host-")
        if (cookie.isSecure || secureName) && !secureOrigin { return .insecureOrigin }
        if secureName && !cookie.isSecure { return .invalidPrefix }
        if lowered.hasPrefix("__host-") && (!hostOnly || cookie.domain != nil || cookie.path != "/") { return .invalidPrefix }
        return nil
    }

    /// The domains whose cookies may apply to `host`: itself and, for a host name, each
    /// parent domain (`a.b.example` → `b.example`, `example`).
    static func candidateDomains(of host: String) -> [String] {
        guard !CookieMatching.isIPAddress(host) else { return [host] }
        var domains = [host]
        var rest = host[...]
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }

    /// §5.4 step 2: longer paths first, then earlier created.
    static func sendingOrder(_ a: Cookie, _ b: Cookie) -> Bool {
        let (pathA, pathB) = (a.path.utf8.count, b.path.utf8.count)
        return pathA != pathB ? pathA > pathB : a.creationOrder < b.creationOrder
    }

    private static func normalizedDomain(_ domain: String) -> String {
        CookieMatching.canonicalHost(domain.hasPrefix(".") ? String(domain.dropFirst()) : domain)
    }

    private mutating func takeOrder() -> UInt64 {
        defer { nextOrder += 1 }
        return nextOrder
    }
}
