import Foundation

/// A pass/fail bound on a load test's report, such as `p99>50ms`,
/// `errors>0.1%` or `rps<1000`: the test fails when the measured value is on
/// the named side of the limit.
///
/// | metric | limit |
/// | --- | --- |
/// | `p50`, `p90`, `p99`, `p999`, `max`, `mean` | a duration: `250us`, `50ms`, `1.5s` |
/// | `errors` | a share of all requests (`0.1%`) or a count (`0`) |
/// | `rps` | requests a second (`1000`) |
///
/// Comparisons are `>`, `>=`, `<` and `<=`.
public struct LoadThreshold: Sendable, Hashable, CustomStringConvertible {
    /// What is measured.
    public enum Metric: String, Sendable, Hashable, CaseIterable {
        /// Latency percentiles of the completed requests.
        case p50, p90, p99, p999
        /// The longest and the mean latency of the completed requests.
        case max, mean
        /// Failed requests: a count, or a share of all requests with a `%` limit.
        case errors
        /// Completed requests a second.
        case rps
    }

    /// How the measured value is compared with the limit; the threshold is crossed when it holds.
    public enum Comparison: String, Sendable, Hashable {
        /// `>`, `>=`, `<`, `<=`.
        case greaterThan = ">", greaterThanOrEqual = ">=", lessThan = "<", lessThanOrEqual = "<="

        func holds(_ measured: Double, _ limit: Double) -> Bool {
            switch self {
            case .greaterThan: measured > limit
            case .greaterThanOrEqual: measured >= limit
            case .lessThan: measured < limit
            case .lessThanOrEqual: measured <= limit
            }
        }
    }

    /// The limit and its unit.
    public enum Limit: Sendable, Hashable {
        /// A latency in microseconds.
        case microseconds(Double)
        /// A share of all requests, in percent.
        case percent(Double)
        /// A plain number: an error count, or requests a second.
        case number(Double)
    }

    /// A threshold that cannot be read, and why.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Why the expression was refused.
        public enum Reason: Sendable, Hashable {
            /// The metric is none of `Metric`'s.
            case unknownMetric(String)
            /// No `>`, `>=`, `<` or `<=` after the metric.
            case missingComparison
            /// The limit is not a number (with its unit).
            case invalidNumber(String)
            /// A latency limit without a unit, or with one other than `us`, `ms` or `s`.
            case durationUnitRequired(String)
            /// A unit the metric does not take (`rps<5ms`, `p99>3%`).
            case unitNotAllowed(metric: Metric, limit: String)
        }

        /// The expression as given.
        public let expression: String
        /// Why it was refused.
        public let reason: Reason

        /// `cannot use threshold "p99>5": "5" needs a duration unit: us, ms or s`.
        public var description: String {
            let why = switch reason {
            case .unknownMetric(let name):
                "\"\(name)\" is not a metric (use \(Metric.allCases.map(\.rawValue).joined(separator: ", ")))"
            case .missingComparison: "expected a comparison (>, >=, <, <=) after the metric"
            case .invalidNumber(let text): "\"\(text)\" is not a number"
            case .durationUnitRequired(let text): "\"\(text)\" needs a duration unit: us, ms or s"
            case .unitNotAllowed(let metric, let limit): "\(metric.rawValue) cannot be compared with \"\(limit)\""
            }
            return "cannot use threshold \"\(expression)\": \(why)"
        }
    }

    /// What is measured.
    public var metric: Metric
    /// How it is compared.
    public var comparison: Comparison
    /// The limit.
    public var limit: Limit

    /// A threshold from its parts.
    public init(metric: Metric, comparison: Comparison, limit: Limit) {
        self.metric = metric
        self.comparison = comparison
        self.limit = limit
    }

    /// Parses an expression such as `p99>50ms`, `errors>0.1%` or `rps<1000` (spaces allowed).
    ///
    /// - Throws: `ParseError` saying what part of the expression is wrong.
    public init(parsing expression: String) throws(ParseError) {
        let text = expression.filter { !$0.isWhitespace }
        guard let operatorStart = text.firstIndex(where: { $0 == ">" || $0 == "<" }) else {
            if Metric(rawValue: text.lowercased()) == nil, !text.isEmpty {
                throw ParseError(expression: expression, reason: .unknownMetric(text))
            }
            throw ParseError(expression: expression, reason: .missingComparison)
        }
        let name = text[..<operatorStart].lowercased()
        guard let metric = Metric(rawValue: name) else { throw ParseError(expression: expression, reason: .unknownMetric(name)) }
        var rest = text[operatorStart...]
        let symbol = rest.hasPrefix(">=") || rest.hasPrefix("<=") ? String(rest.prefix(2)) : String(rest.prefix(1))
        rest = rest.dropFirst(symbol.count)
        let comparison = Comparison(rawValue: symbol)!  // one of the four spellings, by construction
        let limitText = String(rest)
        let number = limitText.prefix { $0.isNumber || $0 == "." }
        let unit = limitText.dropFirst(number.count).lowercased()
        guard let value = Double(number), value.isFinite else {
            throw ParseError(expression: expression, reason: .invalidNumber(limitText))
        }
        let limit: Limit
        switch metric {
        case .p50, .p90, .p99, .p999, .max, .mean:
            let scale: Double? = switch unit {
            case "us", "µs": 1
            case "ms": 1000
            case "s": 1_000_000
            default: nil
            }
            guard let scale else { throw ParseError(expression: expression, reason: .durationUnitRequired(limitText)) }
            limit = .microseconds(value * scale)
        case .errors:
            switch unit {
            case "%": limit = .percent(value)
            case "": limit = .number(value)
            default: throw ParseError(expression: expression, reason: .unitNotAllowed(metric: metric, limit: limitText))
            }
        case .rps:
            guard unit.isEmpty else { throw ParseError(expression: expression, reason: .unitNotAllowed(metric: metric, limit: limitText)) }
            limit = .number(value)
        }
        self.init(metric: metric, comparison: comparison, limit: limit)
    }

    /// The value of the metric in `report`, in the limit's unit.
    public func measured(in report: LoadReport) -> Double {
        let latency = report.latency
        switch metric {
        case .p50: return Double(latency.p50)
        case .p90: return Double(latency.p90)
        case .p99: return Double(latency.p99)
        case .p999: return Double(latency.p999)
        case .max: return Double(latency.max)
        case .mean: return latency.mean
        case .rps: return report.requestsPerSecond
        case .errors:
            guard case .percent = limit else { return Double(report.failed) }
            let total = report.succeeded + report.failed
            return total == 0 ? 0 : Double(report.failed) * 100 / Double(total)
        }
    }

    /// Whether `report` crosses this threshold (the test fails).
    public func isCrossed(by report: LoadReport) -> Bool {
        comparison.holds(measured(in: report), limitValue)
    }

    /// A sentence for a report that crosses it: `p99>50ms: measured 72.400ms`.
    public func breach(in report: LoadReport) -> String {
        "\(self): measured \(Self.format(measured(in: report), as: limit))"
    }

    private var limitValue: Double {
        switch limit {
        case .microseconds(let value), .percent(let value), .number(let value): value
        }
    }

    /// The expression in its usual spelling (`p99>50ms`).
    public var description: String { "\(metric.rawValue)\(comparison.rawValue)\(Self.format(limitValue, as: limit))" }

    private static func format(_ value: Double, as limit: Limit) -> String {
        switch limit {
        case .microseconds: value >= 1000 ? "\(trimmed(value / 1000))ms" : "\(trimmed(value))us"
        case .percent: "\(trimmed(value))%"
        case .number: trimmed(value)
        }
    }

    private static func trimmed(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}
