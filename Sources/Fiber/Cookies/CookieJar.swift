import FiberRuntime
import Foundation

/// A cookie jar that clients share: a `CookieStore` behind a lock, with the time read
/// from a clock given when it is made.
///
/// Off unless given to a client (`Fiber.Configuration.cookieJar`); the runtime asks it
/// for the cookies of every hop of a request, redirects included, and gives it every
/// hop's `Set-Cookie` fields (`HTTPCookieHandler`). A WebSocket handshake made with
/// `Fiber.webSocket` sends and stores cookies too. Several clients may share one jar.
///
/// ```swift
/// let jar = CookieJar(publicSuffixes: ["com", "co.uk"])
/// let fiber = Fiber("https://shop.example.com") { $0.cookieJar = jar }
/// ```
public final class CookieJar: HTTPCookieHandler {
    private let store: Locked<CookieStore>
    private let now: @Sendable () -> Date

    /// An empty jar.
    ///
    /// - Parameters:
    ///   - publicSuffixes: domains a cookie's `Domain` may not be (`CookieStore.publicSuffixes`).
    ///   - limits: how many cookies are kept and how large one may be.
    ///   - now: the wall clock expiry is measured by (default: the system's); tests pass their own.
    public convenience init(publicSuffixes: Set<String> = [], limits: CookieStore.Limits = CookieStore.Limits(),
                            now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(restoring: CookieStore(publicSuffixes: publicSuffixes, limits: limits), now: now)
    }

    /// A jar holding `store`'s cookies, limits and public suffixes (a `snapshot()` saved earlier).
    public init(restoring store: CookieStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = Locked(store)
        self.now = now
    }

    /// The `Cookie` field value for a request to `target`, or nil when no cookie applies.
    public func cookieHeader(for target: HTTPTarget) -> String? {
        let now = now()
        return store.withLock { $0.cookieHeader(for: target, now: now) }
    }

    /// Stores, replaces or deletes what each `Set-Cookie` value of a response from `target` sets.
    public func storeCookies(_ setCookieValues: [String], from target: HTTPTarget) {
        let now = now()
        store.withLock { store in
            for value in setCookieValues { store.receive(value, from: target, now: now) }
        }
    }

    /// Reads one `Set-Cookie` field value as if a response from `url` had sent it.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` when `url` is not an absolute http(s) URL.
    @discardableResult
    public func setCookie(_ setCookie: String, from url: String) throws(HTTPClientError) -> CookieStore.Outcome {
        let target = try HTTPTarget(url)
        let now = now()
        return store.withLock { $0.receive(setCookie, from: target, now: now) }
    }

    /// The cookies a request to `url` would send now, in the order it would send them.
    ///
    /// - Throws: `HTTPClientError` `.invalidURL` when `url` is not an absolute http(s) URL.
    public func cookies(for url: String) throws(HTTPClientError) -> [Cookie] {
        let target = try HTTPTarget(url)
        let now = now()
        return store.withLock { $0.cookies(for: target, now: now) }
    }

    /// Every cookie not expired, by domain.
    public var cookies: [Cookie] { snapshot().cookies }

    /// A copy of the store without its expired cookies: `Codable`, to save the jar and
    /// make it again with `init(restoring:now:)`. Session cookies are in it; a caller that
    /// keeps only persistent ones calls `removeSessionCookies()` on the copy.
    public func snapshot() -> CookieStore {
        let now = now()
        return store.withLock { store in
            store.removeExpired(now: now)
            return store
        }
    }

    /// Removes every cookie.
    public func removeAll() { store.withLock { $0.removeAll() } }
}
