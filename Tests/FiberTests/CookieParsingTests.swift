import Fiber
import FiberRuntime
import Foundation
import Testing

/// RFC 6265 §5.2 through the public store: what a `Set-Cookie` line stores, read as
/// leniently as browsers read it, and which lines store nothing.
@Suite struct CookieParsingTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let site = try! HTTPTarget("https://www.example.com/account/login?next=%2F")

    /// The one cookie `line` stores from `target`.
    func stored(_ line: String, from target: HTTPTarget = site) throws -> Cookie {
        var store = CookieStore()
        let outcome = store.receive(line, from: target, now: Self.now)
        #expect(outcome == .stored, "\(line)")
        return try #require(store.cookies.first)
    }

    @Test func nameValueAndDefaults() throws {
        let cookie = try stored("  sid = a1b2 ")
        #expect(cookie.name == "sid" && cookie.value == "a1b2")
        #expect(cookie.domain == "www.example.com" && cookie.isHostOnly)
        #expect(cookie.path == "/account")  // the request path's directory (§5.1.4)
        #expect(cookie.expires == nil && !cookie.isSecure && !cookie.isHTTPOnly && cookie.sameSite == nil)
        #expect(cookie.created == Self.now && cookie.lastAccessed == Self.now)
    }

    @Test func attributesInAnyCaseAndTheLastOneWins() throws {
        let cookie = try stored("a=b; PATH=/x; pAtH=/y; SECURE; HttpOnly; SameSite=LAX; domain=EXAMPLE.com; Priority=High")
        #expect(cookie.path == "/y" && cookie.isSecure && cookie.isHTTPOnly && cookie.sameSite == .lax)
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly)
    }

    @Test func valuesMayHoldEqualsSignsQuotesAndBeEmpty() throws {
        #expect(try stored("token=abc==; Path=/").value == "abc==")
        #expect(try stored(#"q="quoted value""#).value == #""quoted value""#)
        #expect(try stored("empty=").value == "")
        #expect(try stored("e=; Max-Age=10").value == "")
    }

    @Test func badAttributesAreIgnoredNotTheCookie() throws {
        let cookie = try stored("a=b; Max-Age=soon; Expires=tomorrow; Path=relative; Domain=; SameSite=sometimes; ;; =x; Secure=")
        #expect(cookie.expires == nil && cookie.path == "/account" && cookie.isHostOnly && cookie.sameSite == nil)
        #expect(cookie.isSecure)  // `Secure=` is still `Secure` (the value is ignored)
        let leadingDot = try stored("a=b; Domain=.Example.COM")
        #expect(leadingDot.domain == "example.com" && !leadingDot.isHostOnly)
        let long = try stored("a=b; Path=/" + String(repeating: "p", count: 1100))
        #expect(long.path == "/account")
    }

    @Test(arguments: [
        "", "   ", "novalue", "=value", " = value", "; Path=/", "a\u{1}b=c", "a=b\u{0}c", "a=b\u{7F}", "a\tb=c\u{1F}",
    ])
    func linesWithoutACookieAreRefused(_ line: String) {
        var store = CookieStore()
        #expect(store.receive(line, from: Self.site, now: Self.now) == .refused(.malformed))
        #expect(store.count == 0)
    }

    @Test func invalidUTF8BytesAreKeptAsReplacementCharacters() throws {
        let bytes: [UInt8] = Array("bad=".utf8) + [0xC3, 0x28, 0xFF, 0xFE] + Array("; Path=/".utf8)
        let line = String(decoding: bytes, as: UTF8.self)
        let cookie = try stored(line)
        #expect(cookie.value == "\u{FFFD}(\u{FFFD}\u{FFFD}" && cookie.path == "/")
        var store = CookieStore()
        store.receive(line, from: Self.site, now: Self.now)
        #expect(store.cookieHeader(for: Self.site, now: Self.now) == "bad=\u{FFFD}(\u{FFFD}\u{FFFD}")
    }

    @Test func hugeValuesAreRefusedPastTheLimit() {
        var store = CookieStore()
        let fits = "n=" + String(repeating: "v", count: 4095)
        #expect(store.receive(fits, from: Self.site, now: Self.now) == .stored)
        let over = "n=" + String(repeating: "v", count: 4096)
        #expect(store.receive(over, from: Self.site, now: Self.now) == .refused(.tooLarge))
        let megabyte = "m=" + String(repeating: "x", count: 1 << 20) + "; Path=/"
        #expect(store.receive(megabyte, from: Self.site, now: Self.now) == .refused(.tooLarge))
        var small = CookieStore(limits: .init(maxCookieBytes: 8))
        #expect(small.receive("name=12345", from: Self.site, now: Self.now) == .refused(.tooLarge))
        #expect(small.receive("name=1234", from: Self.site, now: Self.now) == .stored)
        #expect(store.count == 1)
    }

    @Test(arguments: [
        ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894),
        ("Wednesday, 09-Jun-21 10:18:14 GMT", 1_623_233_894),
        ("Wed Jun  9 10:18:14 2021", 1_623_233_894),
        ("09 JUNE 2021 10:18:14", 1_623_233_894),
        ("2021-Jun-09 10:18:14 UTC", 1_623_233_894),  // "2021" is no day (four digits); 09 is
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Sat, 29 Feb 2020 23:59:59 GMT", 1_583_020_799),
    ])
    func expiresInEveryDateForm(_ text: String, _ seconds: Int) throws {
        var near = CookieStore()
        let before = Date(timeIntervalSince1970: TimeInterval(seconds - 10))
        _ = near.receive("a=b; Expires=\(text)", from: Self.site, now: before)
        #expect(near.cookies.first?.expires == Date(timeIntervalSince1970: TimeInterval(seconds)), "\(text)")
    }

    @Test(arguments: [
        "Wed, 31 Jun 2021 10:18:14 GMT", "Mon, 29 Feb 2021 10:18:14 GMT", "Wed, 09 Jun 1600 10:18:14 GMT",
        "Wed, 09 Jun 2021 24:00:00 GMT", "Wed, 09 Jun 2021 10:60:00 GMT", "Wed, 09 Jun 2021 10:18 GMT",
        "Wed, 09 Foo 2021 10:18:14 GMT", "Wed, 0 Jun 2021 10:18:14 GMT", "tomorrow", "", "1623233894",
    ])
    func unreadableDatesAreIgnored(_ text: String) throws {
        let cookie = try stored("a=b; Expires=\(text)")
        #expect(cookie.expires == nil, "\(text)")
    }

    @Test func twoDigitYearsFollowTheRFC() throws {
        var store = CookieStore()
        let early = Date(timeIntervalSince1970: 0)
        _ = store.receive("a=b; Expires=Fri, 01 Jan 70 00:00:10 GMT", from: Self.site, now: early)
        _ = store.receive("c=d; Expires=Sat, 01 Jan 69 00:00:10 GMT", from: Self.site, now: early)
        let dates = Dictionary(uniqueKeysWithValues: store.cookies.map { ($0.name, $0.expires) })
        #expect(dates["a"] == Date(timeIntervalSince1970: 10))
        // 2069 lies past the 400-day cap: the cap holds.
        #expect(dates["c"] == early.addingTimeInterval(CookieStore.maxLifetime))
    }

    @Test func maxAgeWinsOverExpiresAndIsCapped() throws {
        let both = try stored("a=b; Max-Age=60; Expires=Wed, 09 Jun 2100 10:18:14 GMT")
        #expect(both.expires == Self.now.addingTimeInterval(60))
        let reversed = try stored("a=b; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Max-Age=60")
        #expect(reversed.expires == Self.now.addingTimeInterval(60))
        let huge = try stored("a=b; Max-Age=99999999999999999999999999")
        #expect(huge.expires == Self.now.addingTimeInterval(CookieStore.maxLifetime))
        let farExpires = try stored("a=b; Expires=Wed, 09 Jun 2100 10:18:14 GMT")
        #expect(farExpires.expires == Self.now.addingTimeInterval(CookieStore.maxLifetime))
    }

    @Test func maxAgeZeroOrLessDeletes() {
        for line in ["a=x; Max-Age=0", "a=x; Max-Age=-5", "a=x; Max-Age=-99999999999999999999999",
                     "a=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "a=x; Expires=Thu, 01 Jan 2026 00:00:00 GMT; Max-Age=0"] {
            var store = CookieStore()
            #expect(store.receive("a=1", from: Self.site, now: Self.now) == .stored)
            #expect(store.receive(line + "; Path=/account", from: Self.site, now: Self.now) == .deleted, "\(line)")
            #expect(store.count == 0, "\(line)")
        }
        // Max-Age=0 with a later Expires still deletes: Max-Age wins.
        var store = CookieStore()
        _ = store.receive("a=1", from: Self.site, now: Self.now)
        #expect(store.receive("a=1; Max-Age=0; Expires=Wed, 09 Jun 2100 10:18:14 GMT", from: Self.site, now: Self.now)
            == .deleted)
        #expect(store.count == 0)
    }
}
