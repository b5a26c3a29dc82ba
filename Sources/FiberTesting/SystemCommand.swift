import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs system tools (`ip`, `tc`, `nft`) as child processes and waits for
/// them without blocking a thread.
public enum SystemCommand {
    /// A tool failed, or is not installed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        /// A failure that says `description`.
        public init(description: String) { self.description = description }
    }

    /// The first executable named `name` in the usual system folders, or nil.
    public static func find(_ name: String) -> String? {
        ["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` (found by `find`) with `arguments`; returns what it printed.
    ///
    /// - Throws: `Failure` with the command and its output when it is missing,
    ///   exits with another status than 0, or runs longer than `timeout`.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> String {
        guard let path = find(tool) else { throw Failure(description: "\(tool) is not installed") }
        let output = NSTemporaryDirectory() + "fiber-fault-cmd-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess.spawn(path, arguments: arguments, output: output)
        let succeeded = await process.waitForSuccess(timeout: timeout)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard succeeded else {
            throw Failure(description: "\(([tool] + arguments).joined(separator: " ")) failed (\(process.exitDescription)): \(printed)")
        }
        return printed
    }

    /// `run`, with a failure ignored (for clean-up steps whose target may already be gone).
    public static func attempt(_ tool: String, _ arguments: [String]) async {
        _ = try? await run(tool, arguments)
    }
}
