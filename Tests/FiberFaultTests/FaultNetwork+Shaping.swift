import Testing

/// The faults a row applies to its link. netem (`tc qdisc … netem`) shapes
/// both ends of the pair, so each direction gets the delay or loss given; the
/// bottleneck is a token bucket (`tbf`) on the server's end, the direction
/// responses travel.
extension FaultNetwork {
    /// True when the kernel has netem (loading `sch_netem` first if `modprobe` is there).
    func hasNetem() async -> Bool {
        func probe() async -> Bool {
            do {
                try await inClient("tc", ["qdisc", "replace", "dev", clientSide, "root", "netem", "delay", "0ms"])
                try await inClient("tc", ["qdisc", "del", "dev", clientSide, "root"])
                return true
            } catch {
                return false
            }
        }
        if await probe() { return true }
        await SystemCommand.attempt("modprobe", ["sch_netem"])
        return await probe()
    }

    /// netem with `parameters` (`delay 50ms`, `loss 1%`, …) on both ends; skips the
    /// row (cancels the test, saying why) when the kernel has no netem.
    func netem(_ parameters: String...) async throws {
        guard await hasNetem() else {
            try skipRow("netem is not available on this kernel (no sch_netem, built in or as a module), so this row cannot shape the link")
        }
        try await inClient("tc", ["qdisc", "replace", "dev", clientSide, "root", "netem"] + parameters)
        try await inServer("tc", ["qdisc", "replace", "dev", serverSide, "root", "netem"] + parameters)
    }

    /// Drops `percent` % of the packets in each direction at random: with netem, or,
    /// on a kernel without it, with an nftables rule (`numgen random`) on arrival in
    /// each namespace. Returns which of the two did it; skips the row when neither exists.
    func dropRandomly(percent: Int) async throws -> String {
        if await hasNetem() {
            try await netem("loss", "\(percent)%")
            return "netem loss \(percent)%"
        }
        guard SystemCommand.find("nft") != nil else {
            try skipRow("neither netem nor nftables (`nft`) is available to drop packets")
        }
        for namespace in [clientNamespace, serverNamespace] {
            try await run(in: namespace, "nft", ["add", "table", "inet", "fiberfault"])
            try await run(in: namespace, "nft", ["add", "chain", "inet", "fiberfault", "in", "{ type filter hook input priority 0 ; }"])
            try await run(in: namespace, "nft", ["add", "rule", "inet", "fiberfault", "in",
                                                 "numgen", "random", "mod", "100", "<", "\(percent)", "drop"])
        }
        return "nftables drops \(percent) % on arrival each way (no netem on this kernel)"
    }

    /// Limits what the server sends to `rate` (tc's syntax: `1mbit`) with a token bucket.
    func limitServerRate(_ rate: String) async throws {
        try await inServer("tc", ["qdisc", "replace", "dev", serverSide, "root", "tbf", "rate", rate, "burst", "32kbit", "latency", "400ms"])
    }

    /// Limits what the client sends to `rate` with a token bucket on its end.
    func limitClientRate(_ rate: String) async throws {
        try await inClient("tc", ["qdisc", "replace", "dev", clientSide, "root", "tbf", "rate", rate, "burst", "32kbit", "latency", "400ms"])
    }

    /// Takes the link down (`ip link set … down`: both ends lose their carrier) or brings it up.
    func setLink(up: Bool) async throws {
        try await inClient("ip", ["link", "set", clientSide, up ? "up" : "down"])
    }

    /// Sets the MTU of both ends. Below 1280 the kernel turns IPv6 off on the link.
    func setMTU(_ mtu: Int) async throws {
        try await inClient("ip", ["link", "set", "dev", clientSide, "mtu", String(mtu)])
        try await inServer("ip", ["link", "set", "dev", serverSide, "mtu", String(mtu)])
    }
}
