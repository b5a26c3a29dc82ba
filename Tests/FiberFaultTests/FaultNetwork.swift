import FiberRuntime
import FiberTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One private link for one row of the fault matrix: two network namespaces,
/// the client's and the servers', joined by a veth pair, or by a delay line
/// (`Link`), with private addresses (10.213.P.4R+1/30 and fd00:f1be:P:R::/64,
/// P from the process id, R the row).
/// The test process's own namespace is never touched: the client's loop thread
/// and the test server's loop thread each join their namespace (`join`), nginx
/// starts in the servers' one, and every fault is applied to the pair's two ends.
/// A dropped packet is thus dropped on arrival, where the sender's TCP cannot
/// see it, as on a wire.
///
/// Names are `ff<pid>r<row>` followed by `c` and `s` (the namespaces), `a` (the
/// client's end) and `b` (the server's end): unique per process, and each run
/// first deletes what a killed one left behind (`removeStale`).
final class FaultNetwork: Sendable {
    /// What joins the two namespaces.
    enum Link: Sendable {
        /// A veth pair: what one end sends, the other receives at once.
        case veth
        /// A TUN device in each namespace and `Scripts/delay_line.py` between them, which
        /// holds every packet for `oneWay` in each direction, and sends `reorderPercent` %
        /// of them without the delay, ahead of those it holds. It does what netem's `delay`
        /// and `reorder` do, in user space, so it runs on kernels built without netem.
        case delayLine(oneWay: Duration, reorderPercent: Int = 0)
    }

    let row: Int
    let link: Link
    /// The client's namespace.
    let client: NetworkNamespace
    /// The servers' namespace.
    let server: NetworkNamespace
    var clientNamespace: String { client.name }
    var serverNamespace: String { server.name }
    /// The veth end in the client's namespace.
    let clientSide: String
    /// The veth end in the servers' namespace.
    let serverSide: String
    let clientIPv4: String
    let serverIPv4: String
    let clientIPv6: String
    let serverIPv6: String
    /// An address routed into the servers' namespace, where a blackhole route drops what arrives: no answer, no RST, no ICMP.
    let silentIPv4: String
    /// The IPv6 address dropped the same way.
    let silentIPv6: String

    /// The delay line's process, while it runs.
    private let delayLine = Locked<ChildProcess?>(nil)
    /// The file the delay line prints to.
    private let delayLineOutput: String

    private init(row: Int, link: Link) {
        let pid = Int(getpid())
        let base = "ff\(pid)r\(row)"
        self.row = row
        self.link = link
        delayLineOutput = NSTemporaryDirectory() + "fiber-fault-delay-line-\(base)-\(UUID().uuidString)"
        client = NetworkNamespace(name: base + "c")
        server = NetworkNamespace(name: base + "s")
        clientSide = base + "a"
        serverSide = base + "b"
        let subnet = "10.213.\(pid % 256)."
        clientIPv4 = subnet + "\(row * 4 + 1)"
        serverIPv4 = subnet + "\(row * 4 + 2)"
        silentIPv4 = "10.214.\(pid % 256).\(row)"
        let prefix = "fd00:f1be:\(String(pid % 65536, radix: 16)):\(row)::"
        clientIPv6 = prefix + "1"
        serverIPv6 = prefix + "2"
        silentIPv6 = prefix + "99"
    }

    /// Why this machine cannot make `link` (no namespaces, no `tc`, no TUN device or `python3` for a delay line), or nil.
    static func unavailableReason(for link: Link) -> String? {
        if let reason = NetworkNamespace.unavailableReason { return reason }
        if SystemCommand.find("tc") == nil { return "the fault matrix needs iproute2's `tc` (Scripts/setup installs it)" }
        if case .delayLine = link {
            if !FileManager.default.fileExists(atPath: "/dev/net/tun") { return "the delay line needs TUN devices (/dev/net/tun)" }
            if SystemCommand.find("python3") == nil { return "the delay line needs python3" }
        }
        return nil
    }

    /// Makes the namespaces and the `link` for `row`, both ends up, addresses set.
    /// Skips the row (cancels the test, with the reason) when namespaces cannot be made here.
    ///
    /// - Throws: `SystemCommand.Failure` when a later step fails (whatever was made is removed first).
    static func make(row: Int, link: Link = .veth) async throws -> FaultNetwork {
        if let reason = unavailableReason(for: link) { try skipRow(reason) }
        await removeStale()
        let network = FaultNetwork(row: row, link: link)
        await network.remove()
        do {
            try await network.client.create()
            try await network.server.create()
        } catch {
            await network.remove()
            try skipRow("network namespaces cannot be made here: \(error)")
        }
        do {
            try await network.configure()
            return network
        } catch {
            await network.remove()
            throw error
        }
    }

    private func configure() async throws {
        switch link {
        case .veth:
            try await SystemCommand.run("ip", ["link", "add", "name", clientSide, "netns", clientNamespace, "type", "veth",
                                               "peer", "name", serverSide, "netns", serverNamespace])
        case let .delayLine(oneWay, reorderPercent):
            try await inClient("ip", ["tuntap", "add", "dev", clientSide, "mode", "tun"])
            try await inServer("ip", ["tuntap", "add", "dev", serverSide, "mode", "tun"])
            try await startDelayLine(oneWay: oneWay, reorderPercent: reorderPercent)
        }
        for (namespace, device, v4, v6) in [(client, clientSide, clientIPv4, clientIPv6),
                                            (server, serverSide, serverIPv4, serverIPv6)] {
            try await namespace.run("ip", ["addr", "add", v4 + "/30", "dev", device])
            // nodad: the address is usable at once instead of after duplicate address detection.
            try await namespace.run("ip", ["-6", "addr", "add", v6 + "/64", "dev", device, "nodad"])
            // One segment per packet (no 64 KiB super-packets, which a veth passes whole): each
            // fault then meets packets of the sizes a wire carries. A TUN device sends no others.
            if case .veth = link { try await namespace.run("ip", ["link", "set", "dev", device, "gso_max_segs", "1"]) }
            try await namespace.run("ip", ["link", "set", device, "up"])
            try await namespace.run("ip", ["link", "set", "lo", "up"])
        }
        // The silent addresses: routed to the server side, dropped there without a word.
        try await inClient("ip", ["route", "add", silentIPv4 + "/32", "via", serverIPv4, "dev", clientSide])
        try await inClient("ip", ["-6", "route", "add", silentIPv6 + "/128", "via", serverIPv6, "dev", clientSide])
        try await inServer("ip", ["route", "add", "blackhole", silentIPv4 + "/32"])
        try await inServer("ip", ["-6", "route", "add", "blackhole", silentIPv6 + "/128"])
    }

    /// Starts `Scripts/delay_line.py` between the two TUN devices and waits (at most 10 s) until it holds both.
    private func startDelayLine(oneWay: Duration, reorderPercent: Int) async throws {
        guard let python = SystemCommand.find("python3") else { throw SystemCommand.Failure(description: "python3 is not installed") }
        // The repository's root, from this file two folders down (Tests/FiberFaultTests/).
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/delay_line.py").path
        let milliseconds = Double(oneWay.components.seconds) * 1000 + Double(oneWay.components.attoseconds) / 1e15
        let process = try ChildProcess.spawn(
            python, arguments: [script, clientNamespace, clientSide, serverNamespace, serverSide,
                                "--delay-ms", String(milliseconds), "--reorder", String(reorderPercent), "--seed", String(row)],
            output: delayLineOutput)
        delayLine.withLock { $0 = process }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, process.isRunning {
            if delayLineReport.hasPrefix("ready") { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SystemCommand.Failure(description: "the delay line did not start (\(process.exitDescription)): \(delayLineReport)")
    }

    /// What the delay line printed so far.
    private var delayLineReport: String { (try? String(contentsOfFile: delayLineOutput, encoding: .utf8)) ?? "" }

    /// What the delay line says it did, when it stopped.
    struct DelayLineReport: CustomStringConvertible {
        /// Packets it passed on.
        let carried: Int
        /// Of those, the ones sent without the delay, ahead of those it held.
        let sentEarly: Int
        /// Packets lost: its queue was full, or a device would not take them.
        let dropped: Int

        var description: String {
            "the delay line carried \(carried) packets, \(sentEarly) sent without the delay, \(dropped) dropped"
        }
    }

    /// Stops the delay line, if one runs, and returns what it says it did (nil if none ran or it said nothing).
    @discardableResult
    func stopDelayLine() async -> DelayLineReport? {
        guard let process = delayLine.withLock({ value in defer { value = nil }; return value }) else { return nil }
        await process.terminate()
        let line = delayLineReport.split(separator: "\n").last { $0.hasPrefix("carried") } ?? ""
        try? FileManager.default.removeItem(atPath: delayLineOutput)
        // "carried N packets, M sent without the delay, D dropped"
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count == 3 else { return nil }
        return DelayLineReport(carried: numbers[0], sentEarly: numbers[1], dropped: numbers[2])
    }

    /// Deletes the namespaces (and with them the link, its routes and rules) and stops the delay line; safe to call twice.
    func remove() async {
        await stopDelayLine()
        await SystemCommand.attempt("ip", ["-n", clientNamespace, "link", "del", clientSide])
        await client.remove()
        await server.remove()
    }

    /// Deletes namespaces named `ff<pid>r<row>c` or `…s` whose process no longer runs.
    static func removeStale() async {
        let namespaces = (try? await SystemCommand.run("ip", ["netns", "list"])) ?? ""
        for line in namespaces.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            if name.hasSuffix("c") || name.hasSuffix("s"), isStale(String(name.dropLast())) {
                await SystemCommand.attempt("ip", ["netns", "del", name])
            }
        }
    }

    /// True for a base name of this scheme whose process is gone.
    private static func isStale(_ base: String) -> Bool {
        guard base.hasPrefix("ff"), let r = base.firstIndex(of: "r"),
              let pid = Int32(base[base.index(base.startIndex, offsetBy: 2)..<r]),
              Int(base[base.index(after: r)...]) != nil else { return false }
        return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    // MARK: Commands and threads

    /// Runs `tool` inside the client's namespace.
    func inClient(_ tool: String, _ arguments: [String]) async throws {
        try await client.run(tool, arguments)
    }

    /// Runs `tool` inside the servers' namespace.
    func inServer(_ tool: String, _ arguments: [String]) async throws {
        try await server.run(tool, arguments)
    }

    /// TCP segments retransmitted so far in the client's and the servers' namespace (each one's `/proc/net/snmp`).
    func retransmissions() async -> (client: Int, server: Int)? {
        guard let sent = await retransmissions(in: client), let received = await retransmissions(in: server) else { return nil }
        return (sent, received)
    }

    private func retransmissions(in namespace: NetworkNamespace) async -> Int? {
        guard let snmp = try? await namespace.run("cat", ["/proc/net/snmp"]) else { return nil }
        let tcp = snmp.split(separator: "\n").filter { $0.hasPrefix("Tcp:") }.map { $0.split(separator: " ") }
        guard tcp.count == 2, let column = tcp[0].firstIndex(of: "RetransSegs"), column < tcp[1].count else { return nil }
        return Int(tcp[1][column])
    }

    /// Moves `loop`'s thread into the client's namespace: the sockets it opens from then on belong there.
    func joinClient(_ loop: EventLoop) async throws {
        try await client.join(loop)
    }

    /// Moves `loop`'s thread into the servers' namespace.
    func joinServer(_ loop: EventLoop) async throws {
        try await server.join(loop)
    }
}
