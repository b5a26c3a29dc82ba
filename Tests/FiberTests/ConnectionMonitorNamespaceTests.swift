import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A network namespace made for one test: a veth pair from this namespace into it,
/// an address on each end, and a default route inside it through this side.
/// `remove()` deletes it (which destroys the pair); names are unique per process and test.
final class TestNetworkNamespace: Sendable {
    let namespace: NetworkNamespace
    var name: String { namespace.name }
    /// The number of this namespace in the process, part of its names and addresses.
    let index: Int
    let outside: String
    let inside: String
    /// This namespace's end of the pair, the default gateway of the namespace.
    let gateway: String
    /// The namespace's address.
    let address: String

    private static let counter = Locked(0)

    /// Whether this process can make namespaces (root, iproute2, a kernel that allows it).
    static var isAvailable: Bool { NetworkNamespace.unavailableReason == nil }

    private init(_ n: Int) {
        let pid = Int(getpid())
        index = n
        namespace = NetworkNamespace(name: "fibermon-\(pid)-\(n)")
        outside = "fm\(pid % 100_000)o\(n)"
        inside = "fm\(pid % 100_000)i\(n)"
        let subnet = "10.\(100 + pid % 100).\(n % 250 + 1)"
        gateway = "\(subnet).1"
        address = "\(subnet).2"
    }

    /// Makes the namespace, online. Removed again if a step fails.
    ///
    /// - Throws: `SystemCommand.Failure` from the step that failed.
    static func make() async throws -> TestNetworkNamespace {
        let made = TestNetworkNamespace(counter.withLock { $0 += 1; return $0 })
        do {
            try await made.namespace.create()
            try await ip(["link", "add", made.outside, "type", "veth", "peer", "name", made.inside, "netns", made.name])
            try await ip(["addr", "add", "\(made.gateway)/24", "dev", made.outside])
            try await ip(["link", "set", made.outside, "up"])
            try await made.run(["addr", "add", "\(made.address)/24", "dev", made.inside])
            try await made.run(["link", "set", made.inside, "up"])
            try await made.run(["link", "set", "lo", "up"])
            try await made.run(["route", "add", "default", "via", made.gateway])
        } catch {
            await made.remove()
            throw error
        }
        return made
    }

    /// `ip arguments…` inside the namespace.
    func run(_ arguments: [String]) async throws {
        try await namespace.run("ip", arguments)
    }

    /// Puts the default route back (after the link or the address went, the kernel dropped it).
    func restoreDefaultRoute() async throws {
        try await run(["route", "replace", "default", "via", gateway])
    }

    /// Deletes the namespace and the pair; safe to call twice.
    func remove() async {
        await namespace.remove()
        await SystemCommand.attempt("ip", ["link", "del", outside])
    }

    /// `ip arguments…` in this process's namespace.
    static func ip(_ arguments: [String]) async throws {
        try await SystemCommand.run("ip", arguments)
    }
}

/// Records what a monitor reported, through its callback and its sequence.
final class MonitorRecorder: Sendable {
    private let calls = Locked<[Bool]>([])
    private let statuses = Locked<[ConnectionMonitor.Status]>([])
    private let task: Task<Void, Never>

    init(_ monitor: ConnectionMonitor) {
        let calls = self.calls
        let statuses = self.statuses
        monitor.reachabilityChanged = { online in calls.withLock { $0.append(online) } }
        let stream = monitor.changes()
        task = Task {
            for await status in stream { statuses.withLock { $0.append(status) } }
        }
    }

    var callbackValues: [Bool] { calls.withLock { $0 } }
    var streamValues: [Bool] { statuses.withLock { $0.map(\.isReachable) } }

    /// Waits (bounded) for the sequence to end, as it does when monitoring stops.
    func waitForEnd() async { await task.value }
}

@Suite("ConnectionMonitor in network namespaces", .enabled(if: TestNetworkNamespace.isAvailable,
                                                         "cannot create network namespaces here (needs root and iproute2)"))
struct ConnectionMonitorNamespaceTests {
    /// A deadline far above the quiet period: no test asserts a timing but this.
    static let deadline = Duration.seconds(15)

    /// Runs `body` with a fresh namespace and a started monitor bound to it on a private loop;
    /// checks that the monitor left no handle open, and removes everything even on failure.
    func withMonitoredNamespace(
        quietPeriod: Duration = .milliseconds(200),
        _ body: (TestNetworkNamespace, ConnectionMonitor) async throws -> Void
    ) async throws {
        let group = EventLoopGroup(loopCount: 1, name: "monitor-test")
        let namespace = try await TestNetworkNamespace.make()
        let monitor = ConnectionMonitor(networkNamespace: namespace.name, quietPeriod: quietPeriod, eventLoop: group.loops[0])
        do {
            try await monitor.startMonitoring()
            // A veth's operational state reaches up through the kernel's link watcher, a moment after the setup.
            try await waitUntil("the namespace online", timeout: Self.deadline) { monitor.isReachable }
            try await body(namespace, monitor)
            monitor.stopMonitoring()
            let leaked = try await group.leakedHandles(within: .seconds(5))
            #expect(leaked.isEmpty, "handles left open: \(leaked)")
        } catch {
            monitor.stopMonitoring()
            await namespace.remove()
            try? await group.shutdown()
            throw error
        }
        await namespace.remove()
        try await group.shutdown()
    }

    @Test func seesLinkRouteAndAddressChanges() async throws {
        try await withMonitoredNamespace { namespace, monitor in
            #expect(monitor.interfaceType == .wiredEthernet, "a veth is Ethernet to the kernel")
            let recorder = MonitorRecorder(monitor)

            try await namespace.run(["link", "set", namespace.inside, "down"])
            try await waitUntil("offline after the link went down", timeout: Self.deadline) { !monitor.isReachable }
            #expect(monitor.interfaceType == nil)
            try await namespace.run(["link", "set", namespace.inside, "up"])
            try await namespace.restoreDefaultRoute()
            try await waitUntil("online after the link came up", timeout: Self.deadline) { monitor.isReachable }

            try await namespace.run(["route", "del", "default"])
            try await waitUntil("offline without a default route", timeout: Self.deadline) { !monitor.isReachable }
            try await namespace.restoreDefaultRoute()
            try await waitUntil("online with the route back", timeout: Self.deadline) { monitor.isReachable }

            try await namespace.run(["addr", "del", "\(namespace.address)/24", "dev", namespace.inside])
            try await waitUntil("offline without an address", timeout: Self.deadline) { !monitor.isReachable }
            try await namespace.run(["addr", "add", "\(namespace.address)/24", "dev", namespace.inside])
            try await namespace.restoreDefaultRoute()
            try await waitUntil("online with the address back", timeout: Self.deadline) { monitor.isReachable }
            #expect(monitor.interfaceType == .wiredEthernet)

            try await waitUntil("the callback heard all six changes", timeout: Self.deadline) { recorder.callbackValues.count >= 6 }
            #expect(recorder.callbackValues == [false, true, false, true, false, true])
            monitor.stopMonitoring()
            await recorder.waitForEnd()
            #expect(recorder.streamValues == [true, false, true, false, true, false, true], "the current status first")
            #expect(monitor.isReachable, "a stopped monitor knows nothing and blocks nothing")
        }
    }

    @Test func aFlapWithinTheQuietPeriodIsNotReported() async throws {
        try await withMonitoredNamespace(quietPeriod: .seconds(1)) { namespace, monitor in
            let recorder = MonitorRecorder(monitor)
            // Both steps in one `ip` process, a few milliseconds apart.
            let batch = FileManager.default.temporaryDirectory.appendingPathComponent("\(namespace.name)-flap").path
            try "route del default\nroute add default via \(namespace.gateway)\n".write(toFile: batch, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: batch) }
            try await namespace.run(["-batch", batch])
            // A real change afterwards: had the flap been reported, it would come first.
            try await namespace.run(["route", "del", "default"])
            try await waitUntil("offline", timeout: Self.deadline) { !monitor.isReachable }
            try await waitUntil("the callback", timeout: Self.deadline) { !recorder.callbackValues.isEmpty }
            #expect(recorder.callbackValues == [false])
        }
    }

    @Test func stoppingAndStartingAgainWorks() async throws {
        try await withMonitoredNamespace { namespace, monitor in
            monitor.stopMonitoring()
            monitor.stopMonitoring()
            #expect(monitor.status == nil)
            try await namespace.run(["route", "del", "default"])
            try await monitor.startMonitoring()
            #expect(monitor.status == .unreachable, "started: the first reading is known")
            try await monitor.startMonitoring()  // already started: nothing happens
            try await namespace.restoreDefaultRoute()
            try await waitUntil("online", timeout: Self.deadline) { monitor.isReachable }
        }
    }

    @Test func aLoopShutdownStopsTheMonitor() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "monitor-shutdown")
        let namespace = try await TestNetworkNamespace.make()
        do {
            let monitor = ConnectionMonitor(networkNamespace: namespace.name, eventLoop: group.loops[0])
            try await monitor.startMonitoring()
            let recorder = MonitorRecorder(monitor)
            try await group.shutdown()
            await recorder.waitForEnd()
            #expect(monitor.status == nil)
            var failure: ConnectionMonitorError?
            do throws(ConnectionMonitorError) {
                try await monitor.startMonitoring()
            } catch {
                failure = error
            }
            #expect(failure?.kind == .eventLoopShutdown)
        } catch {
            await namespace.remove()
            throw error
        }
        await namespace.remove()
    }

    @Test func anIPv6DefaultRouteAloneIsReachable() async throws {
        try await withMonitoredNamespace { namespace, monitor in
            try await namespace.run(["route", "del", "default"])
            try await waitUntil("offline without the IPv4 route", timeout: Self.deadline) { !monitor.isReachable }
            let prefix = "fd42:\(String(getpid() % 0x10000, radix: 16)):\(namespace.index)"
            try await TestNetworkNamespace.ip(["addr", "add", "\(prefix)::1/64", "dev", namespace.outside, "nodad"])
            // The route first: with only its link-local address the interface cannot use it.
            try await namespace.run(["-6", "route", "add", "default", "via", "\(prefix)::1", "dev", namespace.inside, "onlink"])
            try await namespace.run(["addr", "add", "\(prefix)::2/64", "dev", namespace.inside, "nodad"])
            try await waitUntil("online over IPv6", timeout: Self.deadline) { monitor.isReachable }
            #expect(monitor.interfaceType == .wiredEthernet)
            try await namespace.run(["addr", "del", "\(prefix)::2/64", "dev", namespace.inside])
            try await waitUntil("offline without the IPv6 address", timeout: Self.deadline) { !monitor.isReachable }
        }
    }

    // MARK: Through Fiber

    /// Python's file server on ADDRESS PORT serving DIRECTORY, without `http.server`'s
    /// reverse lookup of its own address at start (a DNS query the namespace cannot answer).
    static let fileServer = """
        import functools, http.server, socketserver, sys
        class Server(http.server.ThreadingHTTPServer):
            def server_bind(self):
                socketserver.TCPServer.server_bind(self)
                self.server_name, self.server_port = self.server_address[:2]
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[3])
        Server((sys.argv[1], int(sys.argv[2])), handler).serve_forever()
        """

    @Test func requestsFailAtOnceWhileOfflineAndGoAgainAfter() async throws {
        try await withMonitoredNamespace { namespace, monitor in
            try await withLiveServer { local, transport in
                local.route("/", respond: .ok("loopback"))
                let port = 8000
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(namespace.name).path
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                try "hello from the namespace\n".write(toFile: directory + "/hello.txt", atomically: true, encoding: .utf8)
                let server = try ChildProcess.spawn(
                    "/usr/sbin/ip", arguments: ["netns", "exec", namespace.name, "python3", "-c", Self.fileServer,
                                                namespace.address, "\(port)", directory],
                    output: directory + ".log")
                defer { try? FileManager.default.removeItem(atPath: directory + ".log") }
                do {
                    let base = "http://\(namespace.address):\(port)"
                    let plain = Fiber(base) { $0.transport = transport }
                    let monitored = Fiber(base) {
                        $0.transport = transport
                        $0.connectionMonitor = monitor
                    }
                    try await waitUntil("the server in the namespace", timeout: Self.deadline) {
                        (try? await plain.get("/hello.txt").statusCode) == 200
                    }
                    let before = try await monitored.get("/hello.txt")
                    #expect(before.statusCode == 200)

                    try await namespace.run(["route", "del", "default"])
                    try await waitUntil("offline", timeout: Self.deadline) { !monitor.isReachable }
                    await expectFiberError({ error in
                        guard case .networkError(let underlying) = error, let offline = underlying as? OfflineError else { return false }
                        return error.isOffline && offline.host == namespace.address
                    }) {
                        _ = try await monitored.get("/hello.txt")
                    }
                    // The server is still there (on the namespace's link): only the monitor said no.
                    let around = try await plain.get("/hello.txt")
                    #expect(around.statusCode == 200)
                    // Loopback needs no default route.
                    let loopback = try await monitored.get("\(local.baseURL)/")
                    #expect(loopback.text == "loopback")
                    // Downloads are refused the same way, and leave nothing behind.
                    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("\(namespace.name)-file").path
                    let download = await FiberDownloader(monitored).download(from: "/hello.txt", to: destination)
                    await expectFiberError({ $0.isOffline }) { _ = try await download.value }
                    #expect(!FileManager.default.fileExists(atPath: destination))

                    try await namespace.restoreDefaultRoute()
                    try await waitUntil("online", timeout: Self.deadline) { monitor.isReachable }
                    let after = try await monitored.get("/hello.txt")
                    #expect(after.statusCode == 200)
                    let downloaded = await FiberDownloader(monitored).download(from: "/hello.txt", to: destination)
                    let file = try await downloaded.value
                    #expect(file.bytes == 25)
                    try? FileManager.default.removeItem(atPath: destination)
                } catch {
                    await server.terminate()
                    throw error
                }
                await server.terminate()
            }
        }
    }
}

@Suite("ConnectionMonitor: starting")
struct ConnectionMonitorStartTests {
    @Test func aMissingNamespaceFailsTheStart() async throws {
        let monitor = ConnectionMonitor(networkNamespace: "fibermon-\(getpid())-missing")
        do {
            try await monitor.startMonitoring()
            Issue.record("started in a namespace that does not exist")
        } catch {
            #expect(error.kind == .namespaceUnavailable)
            #expect(error.code == ENOENT)
        }
        #expect(monitor.isReachable)
        #expect(monitor.status == nil)
    }

    @Test func watchesTheProcesssOwnNamespace() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "monitor-own")
        let monitor = ConnectionMonitor(eventLoop: group.loops[0])
        try await monitor.startMonitoring()
        #expect(monitor.status != nil, "whatever this machine's routes say, they were read")
        monitor.stopMonitoring()
        #expect(monitor.status == nil)
        let leaked = try await group.leakedHandles(within: .seconds(5))
        #expect(leaked.isEmpty, "handles left open: \(leaked)")
        try await group.shutdown()
    }
}
