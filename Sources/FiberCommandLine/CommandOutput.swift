import FiberRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the commands write: standard output and error by default; tests
/// bind `CommandOutput.current` to a buffer to read what a command printed.
public final class CommandOutput: Sendable {
    /// The output of the running command (a task-local, so tests can capture it).
    @TaskLocal public static var current = CommandOutput()

    private let isCapturing: Bool
    private let captured = Locked((out: "", err: ""))
    /// Whether standard output is a terminal (colours, progress bars); false when captured.
    public let isTerminal: Bool
    /// Whether to paint with ANSI colours: on a terminal, unless `NO_COLOR` is set.
    public let colors: Bool

    /// Writes to the process's standard output and error.
    public init() {
        isCapturing = false
        isTerminal = isatty(STDOUT_FILENO) == 1
        colors = Self.wantsColors(isTerminal: isTerminal, environment: ProcessInfo.processInfo.environment)
    }

    /// Colours on a terminal, unless `NO_COLOR` is set to anything but the empty
    /// string (no-color.org's rule: the user's wish wins over the program's default).
    public static func wantsColors(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        return environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Keeps everything written, for tests.
    public static func capturing() -> CommandOutput { CommandOutput(capturing: true) }

    private init(capturing: Bool) {
        isCapturing = true
        isTerminal = false
        colors = false
    }

    /// Writes `text` and a newline to standard output.
    public func print(_ text: String) { write(text + "\n") }

    /// Writes `text` as it is to standard output.
    public func write(_ text: String) {
        if isCapturing { captured.withLock { $0.out += text }; return }
        Self.writeAll(text, to: STDOUT_FILENO)
    }

    /// Writes `text` as it is to standard error (progress, diagnostics).
    public func error(_ text: String) {
        if isCapturing { captured.withLock { $0.err += text }; return }
        Self.writeAll(text, to: STDERR_FILENO)
    }

    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }  // a closed pipe: nothing more to do
            bytes = bytes.dropFirst(written)
        }
    }

    /// What was written to standard output, when capturing.
    public var standardOutput: String { captured.withLock { $0.out } }
    /// What was written to standard error, when capturing.
    public var standardError: String { captured.withLock { $0.err } }
}
