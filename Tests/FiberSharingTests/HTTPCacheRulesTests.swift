import Fiber
import FiberRuntime
import Foundation
import Testing

/// RFC 9111's rules as pure values: no clock, no socket.
@Suite struct HTTPCacheRulesTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)
    let rules = HTTPCacheRules(defaultLifetime: 300, defaultStaleWhileRevalidate: 60)

    @Test func parsesCacheControlDirectives() {
        let control = CacheControl(#"Max-Age=60, no-cache, MUST-REVALIDATE, private, public, s-maxage="30", stale-while-revalidate=15, x-ext"#)
        #expect(control.maxAge == 60)
        #expect(control.sharedMaxAge == 30)
        #expect(control.noCache && control.mustRevalidate && control.isPrivate && control.isPublic)
        #expect(control.staleWhileRevalidate == 15)
        #expect(!control.noStore)
        #expect(CacheControl("max-age=abc").maxAge == nil)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl(headers: ["Cache-Control": "no-store", "cache-control": "max-age=5"]).noStore)
        #expect(CacheControl(headers: ["Cache-Control": "no-store", "cache-control": "max-age=5"]).maxAge == 5)
        // Empty directives, spaces around `=`, and names that only resemble a directive.
        let spaced = CacheControl(" , No-Store,, max-age = 5 ,proxy-REVALIDATE,no-stores,max-ag=9,=3,")
        #expect(spaced.noStore && spaced.maxAge == 5 && spaced.mustRevalidate && !spaced.noCache)
        #expect(CacheControl("") == CacheControl() && CacheControl(",,") == CacheControl())
        #expect(CacheControl("max-age=60, m\u{E1}x-age=1").maxAge == 60)
    }

    @Test func storesOnlyWhatMayBeStored() {
        func canStore(_ method: HTTPMethod = .get, status: Int = 200, request: HTTPHeaders = [:],
                      response: HTTPHeaders = [:], shared: Bool = false) -> Bool {
            HTTPCacheRules(defaultLifetime: 60, isShared: shared)
                .canStore(method: method, statusCode: status, requestHeaders: request, responseHeaders: response)
        }
        #expect(canStore())
        #expect(canStore(.head))
        #expect(!canStore(.post))
        #expect(!canStore(status: 206))
        #expect(!canStore(status: 500))
        #expect(canStore(status: 404))
        #expect(!canStore(response: ["Cache-Control": "no-store"]))
        #expect(!canStore(request: ["Cache-Control": "no-store"]))
        #expect(!canStore(response: ["Vary": "Accept, *"]))
        #expect(canStore(response: ["Cache-Control": "private"]))
        #expect(!canStore(response: ["Cache-Control": "private"], shared: true))
        #expect(!canStore(request: ["Authorization": "Bearer a"], shared: true))
        #expect(canStore(request: ["Authorization": "Bearer a"], response: ["Cache-Control": "public"], shared: true))
        #expect(canStore(request: ["Authorization": "Bearer a"]))
    }

    @Test func lifetimeComesFromTheServerBeforeThePolicy() {
        func lifetime(_ headers: HTTPHeaders, shared: Bool = false) -> TimeInterval {
            HTTPCacheRules(defaultLifetime: 300, isShared: shared)
                .freshness(responseHeaders: headers, requestTime: t0, responseTime: t0).lifetime
        }
        #expect(lifetime([:]) == 300)
        #expect(lifetime(["Cache-Control": "max-age=10"]) == 10)
        #expect(lifetime(["Cache-Control": "max-age=10, s-maxage=99"]) == 10)
        #expect(lifetime(["Cache-Control": "max-age=10, s-maxage=99"], shared: true) == 99)
        #expect(lifetime(["Cache-Control": "max-age=10, no-cache"]) == 0)
        #expect(lifetime(["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 08:50:37 GMT"]) == 60)
        #expect(lifetime(["Expires": "0"]) == 0)
    }

    @Test func freshThenStaleThenExpired() {
        let freshness = rules.freshness(responseHeaders: [:], requestTime: t0, responseTime: t0)
        #expect(freshness.state(at: t0) == .fresh)
        #expect(freshness.state(at: t0 + 299.9) == .fresh)
        #expect(freshness.state(at: t0 + 300) == .stale)
        #expect(freshness.state(at: t0 + 359.9) == .stale)
        #expect(freshness.state(at: t0 + 360) == .expired)
        #expect(freshness.age(at: t0 + 42) == 42)
        #expect(freshness.age(at: t0 - 10) == 0)
    }

    @Test func staleWindowFollowsTheServer() {
        func window(_ value: String) -> TimeInterval {
            rules.freshness(responseHeaders: ["Cache-Control": value], requestTime: t0, responseTime: t0)
                .staleWhileRevalidate
        }
        #expect(window("max-age=5") == 60)
        #expect(window("max-age=5, stale-while-revalidate=7") == 7)
        #expect(window("max-age=5, stale-while-revalidate=7, must-revalidate") == 0)
        #expect(window("no-cache, stale-while-revalidate=7") == 0)
        let mustRevalidate = rules.freshness(responseHeaders: ["Cache-Control": "max-age=5, must-revalidate"],
                                             requestTime: t0, responseTime: t0)
        #expect(mustRevalidate.state(at: t0 + 5) == .expired)
    }

    @Test func ageCountsTheAgeHeaderTheRoundTripAndTheDate() {
        let withAge = rules.freshness(responseHeaders: ["Age": "100", "Cache-Control": "max-age=120"],
                                      requestTime: t0, responseTime: t0 + 2)
        #expect(withAge.initialAge == 102)
        #expect(withAge.state(at: t0 + 2) == .fresh)
        #expect(withAge.state(at: t0 + 20) == .stale)
        let dated = rules.freshness(responseHeaders: ["Date": "Thu, 01 Jan 1970 00:00:00 GMT"],
                                    requestTime: Date(timeIntervalSince1970: 50), responseTime: Date(timeIntervalSince1970: 50))
        #expect(dated.initialAge == 50)
        let garbage = rules.freshness(responseHeaders: ["Age": "soon"], requestTime: t0, responseTime: t0)
        #expect(garbage.initialAge == 0)
    }

    @Test func requestsThatDemandValidation() {
        #expect(rules.requestRequiresValidation(["Cache-Control": "no-cache"]))
        #expect(rules.requestRequiresValidation(["Cache-Control": "max-age=0"]))
        #expect(rules.requestRequiresValidation(["Pragma": "no-cache"]))
        #expect(!rules.requestRequiresValidation(["Cache-Control": "max-age=10"]))
    }

    @Test func varyNamesAndSnapshots() {
        #expect(HTTPCacheRules.varyNames(["Vary": "Accept-Language, accept", "vary": "X-A"]) == ["accept", "accept-language", "x-a"])
        #expect(HTTPCacheRules.varyNames(["Vary": "*"]) == nil)
        #expect(HTTPCacheRules.varyNames([:]) == [])
        let snapshot = HTTPCacheRules.varySnapshot(names: ["accept", "x-missing"], requestHeaders: ["ACCEPT": "text/a"])
        #expect(snapshot == ["accept": "text/a", "x-missing": String?.none])
    }

    @Test func notModifiedUpdatesStoredHeaders() {
        let stored: HTTPHeaders = ["ETag": "\"v1\"", "Cache-Control": "max-age=10", "Content-Length": "5", "X-Keep": "1"]
        let merged = HTTPCacheRules.merging(stored, with: ["etag": "\"v2\"", "Cache-Control": "max-age=99",
                                                          "Content-Length": "0"])
        #expect(merged.first(name: "ETag") == "\"v2\"")
        #expect(merged.values(name: "ETag").count == 1)
        #expect(merged.first(name: "Cache-Control") == "max-age=99")
        #expect(merged.first(name: "Content-Length") == "5")
        #expect(merged.first(name: "X-Keep") == "1")
    }

    @Test func emptyRulesNeverFreshen() {
        let none = HTTPCacheRules(defaultLifetime: 0).freshness(responseHeaders: [:], requestTime: t0, responseTime: t0)
        #expect(none.state(at: t0) == .expired)
    }
}
