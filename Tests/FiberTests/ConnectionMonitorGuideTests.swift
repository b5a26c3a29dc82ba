import Fiber
import Foundation
import Testing

/// The monitor's guide examples, as a user writes them with `import Fiber` alone,
/// over the process's own network namespace.
@Suite struct ConnectionMonitorGuideTests {
    @Test func quickStart() async throws {
        let monitor = ConnectionMonitor()
        monitor.reachabilityChanged = { online in
            print("Network is now", online ? "ONLINE" : "OFFLINE")
        }
        try await monitor.startMonitoring()
        let isReachable = monitor.isReachable  // true or false
        #expect(monitor.status != nil, "a started monitor knows")
        #expect(monitor.status?.isReachable == isReachable)
        if isReachable { #expect(monitor.interfaceType != nil) }
        monitor.stopMonitoring()
        #expect(monitor.status == nil && monitor.isReachable, "a stopped monitor knows nothing and blocks nothing")
    }

    /// The view-model pattern: check before starting work.
    @Test func checkBeforeWork() async throws {
        let monitor = ConnectionMonitor()
        try await monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        enum FeedState { case offline, loading }
        func fetchFeed() -> FeedState {
            guard monitor.isReachable else { return .offline }
            return .loading
        }
        #expect(fetchFeed() == (monitor.isReachable ? .loading : .offline))
        let api = Fiber("https://api.example.com") { $0.connectionMonitor = monitor }
        #expect(api.configuration.connectionMonitor === monitor)
    }
}
