import Fiber
import FiberRuntime
import Foundation
import Testing

/// RFC 6265 §5.3 and §5.4 through `CookieStore`, a value with the time passed in:
/// domains, host-only cookies, paths, `Secure`, replacement, public suffixes, limits
/// and eviction, and the order of the `Cookie` field.
@Suite struct CookieStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func target(_ url: String) -> HTTPTarget { try! HTTPTarget(url) }

    /// `store`'s `Cookie` field for `url` at `now`.
    func header(_ store: inout CookieStore, _ url: String, at now: Date = t0) -> String? {
        store.cookieHeader(for: target(url), now: now)
    }

    @Test func hostOnlyCookiesStayOnTheirHost() {
        var store = CookieStore()
        store.receive("h=1; Path=/", from: target("http://example.com/"), now: Self.t0)
        #expect(header(&store, "http://example.com/a") == "h=1")
        #expect(header(&store, "http://EXAMPLE.com./a") == "h=1")  // the host is compared canonically
        #expect(header(&store, "http://www.example.com/") == nil)
        #expect(header(&store, "http://example.org/") == nil)
        #expect(header(&store, "http://badexample.com/") == nil)
    }

    @Test func domainCookiesReachSubdomainsOnly() {
        var store = CookieStore()
        #expect(store.receive("d=1; Domain=example.com; Path=/", from: target("http://www.example.com/"), now: Self.t0)
            == .stored)
        #expect(header(&store, "http://example.com/") == "d=1")
        #expect(header(&store, "http://a.b.example.com/") == "d=1")
        #expect(header(&store, "http://notexample.com/") == nil)
        #expect(header(&store, "http://example.com.evil.net/") == nil)
    }

    @Test func aDomainThatDoesNotMatchTheHostIsRefused() {
        var store = CookieStore()
        let www = target("http://www.example.com/")
        #expect(store.receive("a=1; Domain=other.com", from: www, now: Self.t0) == .refused(.domainMismatch))
        #expect(store.receive("a=1; Domain=sub.www.example.com", from: www, now: Self.t0) == .refused(.domainMismatch))
        #expect(store.receive("a=1; Domain=ample.com", from: www, now: Self.t0) == .refused(.domainMismatch))
        #expect(store.receive("a=1; Domain=www.example.com", from: www, now: Self.t0) == .stored)
        #expect(store.cookies.first?.isHostOnly == false)
    }

    @Test func listedPublicSuffixesCannotBeACookiesDomain() {
        var store = CookieStore(publicSuffixes: ["com", ".CO.uk"])
        #expect(store.publicSuffixes == ["com", "co.uk"])
        #expect(store.receive("a=1; Domain=com", from: target("http://shop.example.com/"), now: Self.t0)
            == .refused(.publicSuffix))
        #expect(store.receive("a=1; Domain=.co.uk", from: target("https://bank.co.uk/"), now: Self.t0)
            == .refused(.publicSuffix))
        #expect(store.receive("a=1; Domain=bank.co.uk", from: target("https://www.bank.co.uk/"), now: Self.t0) == .stored)
        // A public suffix that is the host itself may set a cookie for itself alone.
        #expect(store.receive("own=1; Domain=co.uk; Path=/", from: target("http://co.uk/"), now: Self.t0) == .stored)
        #expect(store.cookies.first { $0.name == "own" }?.isHostOnly == true)
        #expect(header(&store, "http://other.co.uk/") == nil)
        // Suffixes not listed are not known: no list is bundled.
        var unlisted = CookieStore()
        #expect(unlisted.receive("a=1; Domain=com", from: target("http://shop.example.com/"), now: Self.t0) == .stored)
    }

    @Test func ipAddressHostsGetHostOnlyCookies() {
        var store = CookieStore()
        let v4 = target("http://127.0.0.1:8080/")
        #expect(store.receive("a=1; Domain=0.0.1", from: v4, now: Self.t0) == .refused(.domainMismatch))
        #expect(store.receive("a=1; Domain=1", from: v4, now: Self.t0) == .refused(.domainMismatch))
        #expect(store.receive("b=2; Domain=127.0.0.1", from: v4, now: Self.t0) == .stored)
        #expect(store.cookies.first?.isHostOnly == true)
        let v6 = target("http://[::1]:8080/")
        #expect(store.receive("c=3", from: v6, now: Self.t0) == .stored)
        #expect(header(&store, "http://127.0.0.1:9999/") == "b=2")  // ports do not separate cookies
        #expect(header(&store, "http://[::1]/") == "c=3")
        #expect(header(&store, "http://10.127.0.0.1/") == nil)
    }

    @Test func pathsMatchBySegment() {
        var store = CookieStore()
        store.receive("a=1; Path=/docs", from: target("http://h.test/"), now: Self.t0)
        store.receive("b=2; Path=/docs/", from: target("http://h.test/"), now: Self.t0)
        #expect(header(&store, "http://h.test/docs") == "a=1")
        #expect(header(&store, "http://h.test/docs/") == "b=2; a=1")
        #expect(header(&store, "http://h.test/docs/x?y=/z") == "b=2; a=1")
        #expect(header(&store, "http://h.test/docsearch") == nil)
        #expect(header(&store, "http://h.test/") == nil)
        #expect(header(&store, "http://h.test/?path=/docs") == nil)
    }

    @Test func defaultPathIsTheRequestsDirectory() {
        var store = CookieStore()
        store.receive("a=1", from: target("http://h.test/one/two/page?q=1"), now: Self.t0)
        store.receive("b=2", from: target("http://h.test/top"), now: Self.t0)
        store.receive("c=3", from: target("http://h.test/one/"), now: Self.t0)
        #expect(store.cookies.map(\.path) == ["/one/two", "/one", "/"])
    }

    @Test func secureCookiesGoOnlyOverHTTPSAndWSS() {
        var store = CookieStore()
        #expect(store.receive("s=1; Secure; Path=/", from: target("https://h.test/"), now: Self.t0) == .stored)
        store.receive("p=2; Path=/", from: target("https://h.test/"), now: Self.t0)
        #expect(header(&store, "https://h.test/") == "s=1; p=2")
        #expect(header(&store, "http://h.test/") == "p=2")
        let wss = HTTPTarget(scheme: "wss", host: "h.test", port: 443, pathAndQuery: "/socket")
        let ws = HTTPTarget(scheme: "ws", host: "h.test", port: 80, pathAndQuery: "/socket")
        #expect(store.cookieHeader(for: wss, now: Self.t0) == "s=1; p=2")
        #expect(store.cookieHeader(for: ws, now: Self.t0) == "p=2")
    }

    @Test func insecureResponsesCannotSetSecureCookies() {
        var store = CookieStore()
        let http = target("http://h.test/")
        #expect(store.receive("s=1; Secure", from: http, now: Self.t0) == .refused(.insecureOrigin))
        #expect(store.receive("__Secure-s=1", from: http, now: Self.t0) == .refused(.insecureOrigin))
        #expect(store.count == 0)
    }

    @Test func namePrefixesAreEnforced() {
        var store = CookieStore()
        let https = target("https://www.h.test/a/b")
        #expect(store.receive("__Secure-a=1", from: https, now: Self.t0) == .refused(.invalidPrefix))
        #expect(store.receive("__Secure-a=1; Secure", from: https, now: Self.t0) == .stored)
        #expect(store.receive("__Host-b=1; Secure", from: https, now: Self.t0) == .refused(.invalidPrefix))
        #expect(store.receive("__Host-b=1; Secure; Path=/; Domain=h.test", from: https, now: Self.t0)
            == .refused(.invalidPrefix))
        #expect(store.receive("__host-b=1; Secure; Path=/", from: https, now: Self.t0) == .stored)
    }

    @Test func httpOnlyAndSameSiteAreKeptAndChangeNothing() {
        var store = CookieStore()
        store.receive("a=1; HttpOnly; SameSite=Strict; Path=/", from: target("http://h.test/"), now: Self.t0)
        #expect(store.cookies.first?.isHTTPOnly == true && store.cookies.first?.sameSite == .strict)
        #expect(header(&store, "http://h.test/") == "a=1")
    }

    @Test func theSameNameDomainAndPathReplacesKeepingTheCreationTime() throws {
        var store = CookieStore()
        store.receive("a=1; Path=/", from: target("http://h.test/"), now: Self.t0)
        store.receive("b=1; Path=/", from: target("http://h.test/"), now: Self.t0)
        let later = Self.t0.addingTimeInterval(5)
        #expect(store.receive("a=2; Path=/; HttpOnly", from: target("http://h.test/"), now: later) == .stored)
        #expect(store.count == 2)
        let a = try #require(store.cookies.first { $0.name == "a" })
        #expect(a.value == "2" && a.isHTTPOnly && a.created == Self.t0 && a.lastAccessed == later)
        // Earlier creation first, so `a` (created first) stays ahead of `b`.
        #expect(header(&store, "http://h.test/", at: later) == "a=2; b=1")
        // Another path is another cookie.
        store.receive("a=3; Path=/x", from: target("http://h.test/"), now: later)
        #expect(store.count == 3)
        #expect(header(&store, "http://h.test/x", at: later) == "a=3; a=2; b=1")
    }

    @Test func expiredCookiesAreNotSentAndAreRemoved() {
        var store = CookieStore()
        store.receive("short=1; Max-Age=60; Path=/", from: target("http://h.test/"), now: Self.t0)
        store.receive("dated=1; Expires=Wed, 15 Nov 2023 00:00:00 GMT; Path=/", from: target("http://h.test/"), now: Self.t0)
        store.receive("session=1; Path=/", from: target("http://h.test/"), now: Self.t0)
        #expect(header(&store, "http://h.test/") == "short=1; dated=1; session=1")
        #expect(header(&store, "http://h.test/", at: Self.t0.addingTimeInterval(60)) == "dated=1; session=1")
        #expect(store.count == 2)
        let afterDate = Date(timeIntervalSince1970: 1_700_006_400)  // 2023-11-15 00:00:00
        #expect(header(&store, "http://h.test/", at: afterDate) == "session=1")
        store.removeSessionCookies()
        #expect(store.count == 0)
    }

    @Test func aDomainPastItsLimitLosesExpiredThenLeastRecentlyUsed() {
        var store = CookieStore(limits: .init(maxCookiesPerDomain: 3, maxCookies: 100))
        let site = target("http://h.test/")
        store.receive("old=1; Max-Age=10; Path=/", from: site, now: Self.t0)
        store.receive("a=1; Path=/", from: site, now: Self.t0)
        store.receive("b=1; Path=/a", from: site, now: Self.t0)
        let later = Self.t0.addingTimeInterval(20)
        // `old` has expired: it goes first, though `a` and `b` are older in use.
        store.receive("c=1; Path=/", from: site, now: later)
        #expect(Set(store.cookies.map(\.name)) == ["a", "b", "c"])
        // `a` was sent since; `b` was not: `b` is the least recently used.
        _ = header(&store, "http://h.test/", at: later)
        store.receive("d=1; Path=/", from: site, now: later)
        #expect(Set(store.cookies.map(\.name)) == ["a", "c", "d"])
        // Another domain has its own count.
        store.receive("e=1", from: target("http://other.test/"), now: later)
        #expect(store.count == 4)
    }

    @Test func theStorePastItsTotalLosesTheLeastRecentlyUsedAnywhere() {
        var store = CookieStore(limits: .init(maxCookiesPerDomain: 50, maxCookies: 10))
        for i in 0..<10 { store.receive("c\(i)=\(i)", from: target("http://h\(i).test/"), now: Self.t0) }
        _ = header(&store, "http://h0.test/")  // h0's cookie is used: h1's is now the oldest
        store.receive("new=1", from: target("http://new.test/"), now: Self.t0)
        #expect(store.count == 10)
        #expect(!store.cookies.contains { $0.name == "c1" } && store.cookies.contains { $0.name == "c0" })
        // Expired cookies go before any live one.
        store.receive("brief=1; Max-Age=1", from: target("http://h5.test/"), now: Self.t0)
        #expect(store.count == 10)
        store.receive("x=1", from: target("http://x.test/"), now: Self.t0.addingTimeInterval(2))
        #expect(store.count == 10 && !store.cookies.contains { $0.name == "brief" })
    }

    @Test func thousandsOfCookiesStayWithinTheDefaultLimits() {
        var store = CookieStore()
        for host in 0..<80 {
            for i in 0..<60 { store.receive("n\(i)=v; Path=/", from: target("http://h\(host).test/"), now: Self.t0) }
        }
        #expect(store.count == 3000)
        #expect(Dictionary(grouping: store.cookies, by: \.domain).values.allSatisfy { $0.count <= 50 })
    }

    @Test func zeroLimitsKeepNothing() {
        var store = CookieStore(limits: .init(maxCookiesPerDomain: 0))
        store.receive("a=1", from: target("http://h.test/"), now: Self.t0)
        #expect(store.count == 0)
        var none = CookieStore(limits: .init(maxCookies: -1))
        none.receive("a=1", from: target("http://h.test/"), now: Self.t0)
        #expect(none.count == 0)
    }

    @Test func aSnapshotRoundTripsThroughJSON() throws {
        var store = CookieStore(publicSuffixes: ["com"], limits: .init(maxCookiesPerDomain: 7))
        store.receive("a=1; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=None", from: target("https://h.test/"),
                      now: Self.t0)
        store.receive("b=2; Domain=h.test; Path=/", from: target("https://www.h.test/"), now: Self.t0)
        let data = try JSONEncoder().encode(store)
        var copy = try JSONDecoder().decode(CookieStore.self, from: data)
        #expect(copy.cookies == store.cookies && copy.count == 2)
        #expect(copy.publicSuffixes == ["com"] && copy.limits == store.limits)
        #expect(header(&copy, "https://h.test/") == header(&store, "https://h.test/"))
        // Orders continue after the restored ones: a new cookie sorts after them.
        copy.receive("c=3; Path=/", from: target("https://h.test/"), now: Self.t0)
        #expect(header(&copy, "https://h.test/") == "a=1; b=2; c=3")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CookieStore.self, from: Data("{}".utf8)) }
    }
}
