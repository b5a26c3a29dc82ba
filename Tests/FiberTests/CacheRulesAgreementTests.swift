@testable import Fiber
import FiberRuntime
import Foundation
import Testing

/// `CacheInterceptor` decides storability and freshness with `storage(…)` (the response's
/// directives read once); the shared cache with `canStore` then `freshness`. Over every
/// combination of the fields that matter, both readings give the same answers.
@Suite struct CacheRulesAgreementTests {
    static let cacheControls: [String?] = [
        nil, "max-age=60", "no-store", "no-cache", "private, max-age=5", "public", "s-maxage=30, max-age=10",
        "max-age=60, must-revalidate", "max-age=60, stale-while-revalidate=30", "max-age=abc", "MAX-AGE=7", "",
    ]
    static let varies: [String?] = [nil, "Accept", "*", "accept-encoding, Accept", ""]
    static let otherFields: [[(String, String)]] = [
        [], [("Expires", "Thu, 01 Jan 2099 00:00:00 GMT"), ("Date", "Thu, 26 Nov 2026 00:00:00 GMT")],
        [("Last-Modified", "Wed, 25 Nov 2026 00:00:00 GMT"), ("Date", "Thu, 26 Nov 2026 00:00:00 GMT")],
        [("Age", "20"), ("ETag", "\"v1\"")], [("Expires", "0")],
    ]
    static let requestFields: [[(String, String)]] = [[], [("Cache-Control", "no-store")], [("Authorization", "Bearer t")],
                                                      [("Accept", "application/json")]]

    @Test(arguments: [HTTPMethod.get, .head, .post], [200, 203, 204, 301, 404, 206, 500])
    func storageAgreesWithCanStoreAndFreshness(method: HTTPMethod, status: Int) {
        for shared in [false, true] {
            check(HTTPCacheRules(defaultLifetime: 300, defaultStaleWhileRevalidate: 15, isShared: shared), method, status)
        }
    }

    func check(_ rules: HTTPCacheRules, _ method: HTTPMethod, _ status: Int) {
        let requestTime = Date(timeIntervalSince1970: 1_795_651_200), responseTime = requestTime.addingTimeInterval(0.25)
        for control in Self.cacheControls {
            for vary in Self.varies {
                for other in Self.otherFields {
                    var response = HTTPHeaders(other)
                    if let control { response.append(name: "Cache-Control", value: control) }
                    if let vary { response.append(name: "Vary", value: vary) }
                    for fields in Self.requestFields {
                        let request = HTTPHeaders(fields)
                        let once = rules.storage(method: method, statusCode: status, requestHeaders: request,
                                                 responseHeaders: response, requestTime: requestTime, responseTime: responseTime)
                        let may = rules.canStore(method: method, statusCode: status, requestHeaders: request,
                                                 responseHeaders: response)
                        #expect((once != nil) == may, "\(method) \(status) \(response) \(request)")
                        guard let once, may else { continue }
                        #expect(once.freshness == rules.freshness(responseHeaders: response, requestTime: requestTime,
                                                                  responseTime: responseTime))
                        #expect(once.varyNames == HTTPCacheRules.varyNames(response))
                    }
                }
            }
        }
    }
}
