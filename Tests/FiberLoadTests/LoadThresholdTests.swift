@testable import FiberLoad
import Testing

/// `LoadThreshold`: the expressions of `fiber bench --fail-if`, read and judged against a report.
@Suite struct LoadThresholdTests {
    /// A report of 90 successes at 1..90 ms and 10 failures over 2 s.
    static let report: LoadReport = {
        var recorder = LoadRecorder()
        for ms in 1...90 { recorder.record(LoadSample(status: 200), latency: .milliseconds(ms)) }
        for _ in 0..<10 { recorder.recordFailure(kind: "HTTP 503") }
        return LoadReport(schedule: .closedLoop(concurrency: 1), recorder: recorder, elapsed: .seconds(2))
    }()

    @Test func expressionsAreReadWithTheirUnits() throws {
        #expect(try LoadThreshold(parsing: "p99>50ms") == LoadThreshold(metric: .p99, comparison: .greaterThan, limit: .microseconds(50_000)))
        #expect(try LoadThreshold(parsing: " p999 >= 1.5s ").limit == .microseconds(1_500_000))
        #expect(try LoadThreshold(parsing: "MEAN<250us").limit == .microseconds(250))
        #expect(try LoadThreshold(parsing: "errors>0.1%") == LoadThreshold(metric: .errors, comparison: .greaterThan, limit: .percent(0.1)))
        #expect(try LoadThreshold(parsing: "errors>0").limit == .number(0))
        #expect(try LoadThreshold(parsing: "rps<=1000") == LoadThreshold(metric: .rps, comparison: .lessThanOrEqual, limit: .number(1000)))
        #expect(try LoadThreshold(parsing: "p99>50ms").description == "p99>50ms")
    }

    @Test func badExpressionsSayWhatIsWrong() {
        let cases: [(String, LoadThreshold.ParseError.Reason)] = [
            ("p98>5ms", .unknownMetric("p98")), ("", .missingComparison), ("p99", .missingComparison),
            ("p99>", .invalidNumber("")), ("p99>5", .durationUnitRequired("5")), ("p99>5min", .durationUnitRequired("5min")),
            ("rps<5ms", .unitNotAllowed(metric: .rps, limit: "5ms")), ("errors>1ms", .unitNotAllowed(metric: .errors, limit: "1ms")),
            ("p99>-5ms", .invalidNumber("-5ms")),
        ]
        for (expression, reason) in cases {
            #expect(throws: LoadThreshold.ParseError(expression: expression, reason: reason)) { try LoadThreshold(parsing: expression) }
        }
    }

    @Test func aReportCrossesOrNot() throws {
        let report = Self.report
        func crossed(_ expression: String) throws -> Bool { try LoadThreshold(parsing: expression).isCrossed(by: report) }
        #expect(try crossed("p50>40ms") && !crossed("p50>50ms"))
        #expect(try crossed("max>=90ms") && !crossed("max>91ms"))
        #expect(try crossed("errors>9.9%") && !crossed("errors>10%"))
        #expect(try crossed("errors>9") && !crossed("errors>10"))
        #expect(try crossed("rps<46") && !crossed("rps<45"))
        #expect(try LoadThreshold(parsing: "errors>5%").breach(in: report) == "errors>5%: measured 10%")
    }
}
