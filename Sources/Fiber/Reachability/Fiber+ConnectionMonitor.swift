import FiberRuntime

extension Fiber {
    /// The failure a request meets at once when the client's connection monitor
    /// reports the machine offline and the request's host is not loopback; nil
    /// when the request may go (no monitor, online, or a loopback host).
    func offlineFailure(for request: FiberRequest) -> FiberError? {
        guard let monitor = configuration.connectionMonitor, !monitor.isReachable else { return nil }
        let host = request.location.target?.host ?? request.location.url.host ?? ""
        guard !LoopbackHost.contains(host) else { return nil }
        return .networkError(underlying: OfflineError(host: host))
    }
}
