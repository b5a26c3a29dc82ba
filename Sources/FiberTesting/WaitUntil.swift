/// Polls `condition` every millisecond until it holds, for at most `timeout`:
/// tests order their steps by observed state, never by sleeping a guessed time.
///
/// - Throws: `ConditionTimedOut` when `condition` still fails after `timeout`
///   (naming `what`); `CancellationError` when the task is cancelled.
public func waitUntil(_ what: String = "condition", timeout: Duration = .seconds(20),
                      _ condition: () async -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !(await condition()) {
        guard clock.now < deadline else { throw ConditionTimedOut(what: what, timeout: timeout) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// A condition a test waited for with `waitUntil` did not hold in time.
public struct ConditionTimedOut: Error, Sendable, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// How long it was waited for.
    public let timeout: Duration

    /// "timed out after … waiting for …".
    public var description: String { "timed out after \(timeout) waiting for \(what)" }
}
