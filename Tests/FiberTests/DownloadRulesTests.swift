@testable import Fiber
import FiberRuntime
import Testing

@Suite("Download rules (resuming with Range and If-Range)")
struct DownloadRulesTests {
    typealias Decision = DownloadRules.Decision

    static func headers(_ fields: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.append(name: name, value: value) }
        return headers
    }

    @Test(arguments: [
        // A download from zero.
        (200, [("Content-Length", "10")], nil, Decision.write(offset: 0, truncate: true, total: 10)),
        (200, [], nil, .write(offset: 0, truncate: true, total: nil)),
        (206, [("Content-Range", "bytes 0-9/10")], nil, .write(offset: 0, truncate: true, total: 10)),
        (206, [("Content-Range", "bytes 5-9/10")], nil, .malformed("a 206 starting at 5, not asked for")),
        (404, [], nil, .failStatus(404)),
        (416, [("Content-Range", "bytes */10")], nil, .failStatus(416)),
        // A resume at 5.
        (206, [("Content-Range", "bytes 5-9/10")], 5, .write(offset: 5, truncate: false, total: 10)),
        (206, [("Content-Range", "bytes 5-9/*")], 5, .write(offset: 5, truncate: false, total: nil)),
        (206, [("Content-Range", "bytes 0-9/10")], 5, .write(offset: 0, truncate: true, total: 10)),
        (206, [("Content-Range", "bytes 3-9/10")], 5, .restart),
        (200, [("Content-Length", "12")], 5, .write(offset: 0, truncate: true, total: 12)),
        (416, [("Content-Range", "bytes */5")], 5, .complete(total: 5)),
        (416, [("Content-Range", "bytes */3")], 5, .restart),
        (416, [], 5, .restart),
        (503, [], 5, .failStatus(503)),
    ] as [(Int, [(String, String)], Int?, Decision)])
    func decides(status: Int, fields: [(String, String)], resumeAt: Int?, expected: Decision) {
        #expect(DownloadRules.decide(status: status, headers: Self.headers(fields), resumeOffset: resumeAt) == expected)
    }

    @Test(arguments: ["", "bytes", "bytes 5-9", "bytes 9-5/10", "bytes 5-10/10", "bytes a-9/10", "items 0-9/10", "bytes */*"])
    func aContentRangeThatDoesNotParseMakesA206Malformed(field: String) {
        let decision = DownloadRules.decide(status: 206, headers: Self.headers([("Content-Range", field)]), resumeOffset: 5)
        guard case .malformed = decision else {
            Issue.record("\(field): \(decision)")
            return
        }
    }

    @Test func theValidatorIsAStrongETagElseLastModified() {
        let lastModified = "Wed, 25 Nov 2026 10:00:00 GMT"
        #expect(DownloadResumeState.validator(in: Self.headers([("ETag", "\"abc\""), ("Last-Modified", lastModified)])) == "\"abc\"")
        #expect(DownloadResumeState.validator(in: Self.headers([("ETag", "W/\"abc\""), ("Last-Modified", lastModified)])) == lastModified)
        #expect(DownloadResumeState.validator(in: Self.headers([("ETag", "W/\"abc\"")])) == nil)
        #expect(DownloadResumeState.validator(in: Self.headers([])) == nil)
        #expect(DownloadRules.resumeFields(offset: 7, validator: "\"abc\"").map { "\($0.0): \($0.1)" }
                == ["Range: bytes=7-", "If-Range: \"abc\""])
    }
}

@Suite("Downloads a host runs at once")
struct HostQueueTests {
    @Test func runsUpToTheLimitAndThenInOrder() {
        var queue = HostQueue(limit: 2)
        let arrivals = [(1, "a"), (2, "a"), (3, "a"), (4, "a"), (5, "b")].map { queue.arrive($0.0, host: $0.1) }
        #expect(arrivals == [true, true, false, false, true])
        #expect(queue.counts(for: "a") == (2, 2))
        let next = queue.finish(host: "a")
        #expect(next == 3)
        let left = queue.leave(4, host: "a")
        let leftAgain = queue.leave(4, host: "a")
        #expect(left && !leftAgain)
        let none = queue.finish(host: "a")
        #expect(none == nil)
        #expect(queue.counts(for: "a") == (1, 0))
        _ = queue.finish(host: "a")
        #expect(queue.counts(for: "a") == (0, 0))
        let again = queue.arrive(6, host: "a")
        #expect(again)
    }

    @Test func aLimitBelowOneIsOne() {
        var queue = HostQueue(limit: 0)
        let arrivals = [queue.arrive(1, host: "a"), queue.arrive(2, host: "a")]
        #expect(arrivals == [true, false])
    }
}
