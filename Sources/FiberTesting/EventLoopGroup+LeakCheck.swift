import FiberRuntime

extension EventLoopGroup {
    /// The handles (sockets, timers, listeners) still open on each loop,
    /// after waiting up to `timeout` for close callbacks to run: loop index →
    /// count, empty when nothing leaked. Tests end with it, as libuv's own do.
    ///
    /// - Throws: `EventLoopError.shutdown` if the group was already shut down.
    public func leakedHandles(within timeout: Duration = .seconds(1)) async throws -> [Int: Int] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var leaked: [Int: Int] = [:]
        for loop in loops {
            var open = try await loop.openHandleCount()
            while open != 0, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
                open = try await loop.openHandleCount()
            }
            if open != 0 { leaked[loop.index] = open }
        }
        return leaked
    }
}
