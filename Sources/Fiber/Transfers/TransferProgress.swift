import FiberRuntime
import Synchronization

/// How far a transfer is: bytes moved so far, the total when known, and the rate.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes sent (an upload) or received (a download) so far.
    public var bytes: Int
    /// The whole size, when known (`Content-Length`, a file's size).
    public var total: Int?
    /// Bytes a second since the transfer started.
    public var bytesPerSecond: Double

    /// A progress value from its parts.
    public init(bytes: Int, total: Int?, bytesPerSecond: Double) {
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
    }

    /// `bytes ÷ total` in 0...1, when the total is known (1 for an empty transfer).
    public var fraction: Double? {
        total.map { $0 == 0 ? 1 : min(1, Double(bytes) / Double($0)) }
    }
}

/// Turns a count after every chunk (of an upload or a download) into reports at a
/// bounded rate: the first chunk, then at most one an `interval`, and the last count always.
final class ProgressReporter: Sendable {
    private struct State {
        var start: MonotonicTime?
        var lastReport: MonotonicTime?
        var latest: (bytes: Int, total: Int?)?
        var reported = -1
        /// Bytes there before this transfer started (a resumed download): not part of the rate.
        var baseline = 0
    }

    private let interval: Duration
    private let report: @Sendable (TransferProgress) -> Void
    /// Told once when the request's call is over (an `AsyncStream` of reports ends then).
    private let ended: (@Sendable () -> Void)?
    private let state = Mutex(State())

    init(interval: Duration, report: @escaping @Sendable (TransferProgress) -> Void, ended: (@Sendable () -> Void)? = nil) {
        self.interval = interval
        self.report = report
        self.ended = ended
    }

    /// A request never sent ends its stream when the last copy of it goes.
    deinit { ended?() }

    /// The transfer starts with `bytes` already done (a download resumed from them).
    func start(at bytes: Int) {
        state.withLock { $0.baseline = bytes }
    }

    /// Records `bytes` of `total` out; reports it when due.
    func record(_ bytes: Int, of total: Int?) {
        let now = MonotonicTime.now()
        let due: TransferProgress? = state.withLock { s in
            let start = s.start ?? now
            s.start = start
            s.latest = (bytes, total)
            let complete = total.map { bytes >= $0 } ?? false
            guard complete || s.lastReport.map({ now - $0 >= interval }) ?? true else { return nil }
            s.lastReport = now
            s.reported = bytes
            return Self.progress(bytes, total, baseline: s.baseline, since: start, now: now)
        }
        if let due { report(due) }
    }

    /// The request is done: reports the last count if it was held back.
    func finish() {
        let now = MonotonicTime.now()
        let due: TransferProgress? = state.withLock { s in
            guard let latest = s.latest, let start = s.start, latest.bytes != s.reported else { return nil }
            s.reported = latest.bytes
            return Self.progress(latest.bytes, latest.total, baseline: s.baseline, since: start, now: now)
        }
        if let due { report(due) }
    }

    /// The request's call returned or threw, after every retry: the count held back,
    /// then the end of a stream of reports.
    func requestEnded() {
        finish()
        ended?()
    }

    private static func progress(_ bytes: Int, _ total: Int?, baseline: Int, since start: MonotonicTime,
                                 now: MonotonicTime) -> TransferProgress {
        let seconds = (now - start).seconds
        let moved = Double(max(0, bytes - baseline))
        return TransferProgress(bytes: bytes, total: total, bytesPerSecond: seconds > 0 ? moved / seconds : 0)
    }
}
