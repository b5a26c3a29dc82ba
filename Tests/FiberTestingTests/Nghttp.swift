import FiberTesting
import Foundation

/// `nghttp` (Debian's nghttp2-client), the reference HTTP/2 client the HTTP/2 servers of
/// FiberTesting are checked with before Fiber's own client uses them.
enum Nghttp {
    static let binary = "/usr/bin/nghttp"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// What one run printed (stdout and stderr, `-v` frames included) and whether it exited 0.
    struct Run {
        let succeeded: Bool
        let output: String

        /// nghttp exits 0 even when a stream failed: it says so in its output.
        var processedAll: Bool { succeeded && !output.contains("Some requests were not processed") }

        /// How many lines contain `text`.
        func count(_ text: String) -> Int { output.components(separatedBy: "\n").filter { $0.contains(text) }.count }
    }

    /// Runs `nghttp arguments` for at most `timeout` (then it is terminated).
    static func run(_ arguments: [String], timeout: Duration = .seconds(20)) async throws -> Run {
        let directory = try TemporaryDirectory.make(prefix: "fiber-nghttp")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try ChildProcess.spawn(binary, arguments: arguments, output: directory + "/out")
        let succeeded = await process.waitForSuccess(timeout: timeout)
        let output = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
        return Run(succeeded: succeeded, output: output)
    }
}
