import ArgumentParser
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `fiber bench` for harnesses: the percentile spectrum, `.hgrm` files,
/// `--fail-if` verdicts, `--timeout` and `--no-keepalive`.
@Suite(.serialized) struct BenchCommandTests {
    /// The rows of a percentile distribution: value, percentile, total count (the last row has no 1/(1-p)).
    static func rows(of text: Substring) -> [(value: Double, percentile: Double, count: Int)] {
        text.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: " ")
            guard columns.count == 3 || columns.count == 4, let value = Double(columns[0]),
                  let percentile = Double(columns[1]), let count = Int(columns[2]) else { return nil }
            return (value, percentile, count)
        }
    }

    /// Checks a distribution of `total` samples: rows in order, reaching 100% and the total; the footer.
    static func expectWellFormed(_ text: Substring, total: Int) {
        let rows = rows(of: text)
        #expect(rows.count > 10, "\(text)")
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.value <= $1.value && $0.percentile <= $1.percentile && $0.count <= $1.count })
        #expect(rows.last?.percentile == 1.0 && rows.last?.count == total)
        #expect(text.contains("Value") && text.contains("1/(1-Percentile)"))
        for footer in ["#[Mean    =", "#[Max     =", "#[Buckets ="] { #expect(text.contains(footer), "\(footer)") }
        #expect(text.contains("Total count    =") && text.contains("\(total)]"))
    }

    @Test func latencyPrintsTheDetailedSpectrumAndHgrmWritesIt() async throws {
        try await CommandTests.withServer { server in
            let path = NSTemporaryDirectory() + "fiber-bench-\(UUID().uuidString).hgrm"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let (out, code) = try await CommandTests.run(Bench.self, [server.url("/json"), "-c", "2", "-d", "30", "--requests", "300",
                                                                      "--warmup", "0", "--latency", "--hgrm", path])
            #expect(code == 0, "\(out.standardError)")
            let heading = try #require(out.standardOutput.range(of: "Detailed Percentile spectrum:"))
            Self.expectWellFormed(out.standardOutput[heading.upperBound...], total: 300)
            let file = try String(contentsOfFile: path, encoding: .utf8)
            Self.expectWellFormed(file[...], total: 300)
            #expect(file.hasPrefix("       Value"))
        }
    }

    @Test func failIfSetsTheExitStatusAndNamesTheThreshold() async throws {
        try await CommandTests.withServer { server in
            let base = [server.url("/json"), "-c", "2", "-d", "30", "--requests", "40", "--warmup", "0"]
            let (passed, passedCode) = try await CommandTests.run(Bench.self, base + ["--fail-if", "p99>60s", "--fail-if", "errors>0.1%",
                                                                                   "--fail-if", "max>=1000s", "--fail-if", "rps<0.001"])
            #expect(passedCode == 0, "\(passed.standardError)")
            #expect(!passed.standardError.contains("threshold crossed"))
            let (failed, failedCode) = try await CommandTests.run(Bench.self, base + ["--fail-if", "p50>60s", "--fail-if", "rps<1000000000"])
            #expect(failedCode == FiberExitCode.thresholdCrossed.rawValue)
            #expect(failed.standardError.contains("threshold crossed: rps<1000000000: measured"))
            #expect(!failed.standardError.contains("p50>"))
            let (errors, errorsCode) = try await CommandTests.run(Bench.self, [server.url("/missing"), "-c", "1", "-d", "30", "--requests", "5",
                                                                              "--warmup", "0", "--fail-if", "errors>0"])
            #expect(errorsCode == 2)
            #expect(errors.standardError.contains("errors>0: measured 5"))
        }
    }

    @Test func aBadThresholdIsAUsageError() throws {
        for (expression, words) in [("p99>50", "needs a duration unit"), ("p98>5ms", "is not a metric"), ("rps<5ms", "cannot be compared"),
                                    ("errors", "expected a comparison"), ("p99>fast", "is not a number")] {
            do {
                _ = try Bench.parse(["http://127.0.0.1:1/", "--fail-if", expression])
                Issue.record("\(expression) was accepted")
            } catch {
                #expect(Bench.exitCode(for: error) == .validationFailure, "\(expression)")
                #expect(Bench.message(for: error).contains(words), "\(Bench.message(for: error))")
            }
        }
    }

    @Test func timeoutCountsASilentServerAsErrors() async throws {
        try await CommandTests.withServer { server in
            server.route("/silent", respond: .fault(.silent))
            let (out, code) = try await CommandTests.run(Bench.self, [server.url("/silent"), "-c", "2", "-d", "0.5", "--warmup", "0",
                                                                      "--timeout", "0.1", "--json"])
            #expect(code == 0)
            let report = try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any]
            #expect(report?["succeeded"] as? Int == 0)
            #expect((report?["failed"] as? Int ?? 0) >= 2)
            let errors = report?["errors"] as? [String: Int] ?? [:]
            #expect(errors.keys.contains("request deadline exceeded"), "\(errors)")
        }
    }

    @Test func noKeepaliveOpensAConnectionPerRequest() async throws {
        try await CommandTests.withServer { server in
            let (_, code) = try await CommandTests.run(Bench.self, [server.url("/json"), "-c", "1", "-d", "30", "--requests", "12",
                                                                    "--warmup", "0", "--no-keepalive"])
            #expect(code == 0)
            #expect(server.requestCount == 12)
            #expect(server.connectionCount == 12)
            #expect(server.recordedRequests().allSatisfy { $0.header("Connection") == "close" })
        }
        try await CommandTests.withServer { server in
            _ = try await CommandTests.run(Bench.self, [server.url("/json"), "-c", "1", "-d", "30", "--requests", "12", "--warmup", "0"])
            #expect(server.connectionCount == 1)
        }
    }
}
