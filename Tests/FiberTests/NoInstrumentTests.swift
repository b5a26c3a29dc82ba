import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Instrumentation
import Testing

/// Propagation with no swift-distributed-tracing instrument installed.
///
/// This test process installs `InMemoryTracer` for good the first time a
/// tracing suite runs (a process can bootstrap the system once), so each of
/// these tests runs itself again in a child process of this test binary, where
/// nothing installs one, and passes when the child's run of it passes.
@Suite struct NoInstrumentTests {
    /// Fiber's own `traceparent` carries the request's trace ID, a new span ID
    /// and the sampled flag clear: Fiber recorded nothing, so it claims no sampling.
    @Test func fibersTraceparentIsNotSampled() async throws {
        try await withoutInstrument("fibersTraceparentIsNotSampled") {
            try await withLiveServer { server, transport in
                server.route("/t") { request in .ok(request.header("traceparent") ?? "") }
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                let response = try await fiber.get("/t")
                let parts = response.text.split(separator: "-").map(String.init)
                #expect(parts.count == 4 && parts[0] == "00" && parts[3] == "00", "\(response.text)")
                #expect(parts.count == 4 && parts[1] == response.traceID.lowercased().replacingOccurrences(of: "-", with: ""))
                #expect(parts.count == 4 && parts[2].count == 16 && parts[2] != String(repeating: "0", count: 16))

                // A request's own traceparent wins; the option turns propagation off.
                let own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
                #expect(try await fiber.send(FiberRequest(url: server.baseURL + "/t").header("traceparent", own)).text == own)
                let quiet = Fiber(server.baseURL) { $0.transport = transport; $0.propagatesTraceContext = false }
                #expect(try await quiet.get("/t").text == "")
            }
        }
    }

    /// The caller's trace (a trace ID the task carries, say from the server's
    /// incoming request) is continued: same trace ID on the wire and on the response.
    @Test func theCallersTraceIsContinued() async throws {
        try await withoutInstrument("theCallersTraceIsContinued") {
            try await withLiveServer { server, transport in
                server.route("/t") { request in .ok(request.header("traceparent") ?? "") }
                // No interceptor: the trace ID is carried by the request, not bound to the task.
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                let traceID = "0af7651916cd43dd8448eb211c80319c"
                let response = try await TraceContext.$traceID.withValue(traceID) { try await fiber.get("/t") }
                #expect(response.traceID == traceID)
                #expect(response.text.hasPrefix("00-\(traceID)-") && response.text.hasSuffix("-00") && response.text.count == 55)
                let fresh = try await fiber.get("/t")
                #expect(!fresh.traceID.isEmpty && fresh.traceID != traceID)
                #expect(fresh.text.hasPrefix("00-" + fresh.traceID.lowercased().replacingOccurrences(of: "-", with: "")))
            }
        }
    }
}

/// Runs `body` in this process when it is the child that `test` started (no
/// instrument installed), else starts that child: this test binary, running
/// `test` alone, and expects it to pass.
private func withoutInstrument(_ test: String, _ body: () async throws -> Void) async throws {
    if ProcessInfo.processInfo.environment["FIBER_TEST_NO_INSTRUMENT"] == "1" {
        #expect(InstrumentationSystem.instrument is NoOpInstrument, "the child installs no instrument")
        try await body()
        return
    }
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).path
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-no-instrument-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let child = try ChildProcess.spawn("/usr/bin/env", arguments: [
        "FIBER_TEST_NO_INSTRUMENT=1", binary, "--testing-library", "swift-testing",
        "--filter", "NoInstrumentTests/\(test)",
    ], output: output)
    let passed = await child.waitForSuccess(timeout: .seconds(120))
    let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    #expect(passed, "the child's run of \(test) failed (\(child.exitDescription)):\n\(log.suffix(4000))")
    // The filter matched the test, and it ran: a child that ran nothing must not pass for it.
    #expect(log.contains("\(test)()") && log.contains("passed"), "\(log.suffix(4000))")
}
