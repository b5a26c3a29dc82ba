import FiberRuntime
import Foundation
import Testing

/// What one row saw: notes with their times, written, when the row ends, as one
/// line of the file named by `FIBER_FAULT_REPORT` (Scripts/fault-matrix turns the
/// lines into the table of `Docs/Reliability.md`); nothing is written without it.
final class RowLog: Sendable {
    /// The log of the row running in this task, for `skipRow`.
    @TaskLocal static var current: RowLog?

    private let notes = Locked<[String]>([])
    private let skipReason = Locked<String?>(nil)

    /// Adds a note (`what` and, if given, how long it took).
    func note(_ what: String, after duration: Duration? = nil) {
        let text = duration.map { "\(what) in \(Self.format($0))" } ?? what
        notes.withLock { $0.append(text) }
    }

    /// Runs `operation`, notes `what` with its time to completion (or to its error), and returns or rethrows.
    func timed<T>(_ what: String, _ operation: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        do {
            let result = try await operation()
            note(what, after: ContinuousClock.now - start)
            return result
        } catch {
            note("\(what): \(Self.kind(of: error))", after: ContinuousClock.now - start)
            throw error
        }
    }

    var text: String { notes.withLock { $0.joined(separator: "; ") } }

    /// Why the row was skipped, if it was.
    var skipped: String? {
        get { skipReason.withLock { $0 } }
        set { skipReason.withLock { $0 = newValue } }
    }

    static func format(_ duration: Duration) -> String {
        String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func kind(of error: any Error) -> String {
        if let error = error as? HTTPClientError {
            return error.transport.map { "\(error.kind) (\($0.kind))" } ?? "\(error.kind)"
        }
        return "\(error)"
    }
}

/// Runs the row `number` (`fault` says what it does to the link) and reports
/// its outcome: `completed` with its notes, `skipped` with the reason, or
/// `FAILED` with the error. An expectation that fails without throwing is
/// reported by the test run itself (the script marks such rows).
func faultRow(_ number: String, _ fault: String, _ body: (RowLog) async throws -> Void) async throws {
    let log = RowLog()
    let start = ContinuousClock.now
    do {
        try await RowLog.$current.withValue(log) { try await body(log) }
        FaultReportFile.append(number, fault, "completed", log.text, ContinuousClock.now - start)
    } catch {
        if let reason = log.skipped {
            FaultReportFile.append(number, fault, "skipped", reason, ContinuousClock.now - start)
        } else {
            FaultReportFile.append(number, fault, "FAILED", "\(log.text); \(RowLog.kind(of: error))", ContinuousClock.now - start)
        }
        throw error
    }
}

/// Skips the running row: notes `reason` for the report and cancels the test with it.
func skipRow(_ reason: String) throws -> Never {
    RowLog.current?.skipped = reason
    try Test.cancel(Comment(rawValue: reason))
}

/// The report file's lines: tab-separated row, fault, outcome, notes, seconds.
enum FaultReportFile {
    static func append(_ row: String, _ fault: String, _ outcome: String, _ notes: String, _ duration: Duration) {
        guard let path = ProcessInfo.processInfo.environment["FIBER_FAULT_REPORT"] else { return }
        let clean = { (text: String) in text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
        let line = [row, fault, outcome, notes, RowLog.format(duration)].map(clean).joined(separator: "\t") + "\n"
        guard let handle = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line.utf8))
    }
}
