/// How a server started as a child process came up.
public enum ChildProcessReadiness: Sendable, Equatable {
    /// It runs and accepts connections on its port.
    case listening
    /// It exited first (its log says why).
    case exited
    /// It neither listened nor exited in time.
    case timedOut
}

extension ChildProcess {
    /// Waits until the process accepts TCP connections on 127.0.0.1:`port`, or exits, at most `timeout`.
    public func waitUntilListening(port: Int, timeout: Duration = .seconds(10)) async -> ChildProcessReadiness {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !isRunning { return .exited }
            if LoopbackSocket.accepts(port: port) {
                // Someone else may hold the port: it is ours only if the process still runs.
                try? await Task.sleep(for: .milliseconds(5))
                return isRunning ? .listening : .exited
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return .timedOut
    }
}
