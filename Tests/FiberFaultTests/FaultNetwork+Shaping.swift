import FiberTesting
import Testing

/// The faults a row applies to its link (latency and reordering come from the
/// link itself: `Link.delayLine`). Loss is an nftables rule on arrival in each
/// namespace; the bottleneck is a token bucket (`tbf`) on one end.
extension FaultNetwork {
    /// Drops `percent` % of the packets arriving in each namespace at random, with an
    /// nftables rule (`numgen random`); returns what it did, for the row's notes.
    /// Skips the row when nftables is missing.
    func dropRandomly(percent: Int) async throws -> String {
        guard SystemCommand.find("nft") != nil else {
            try skipRow("nftables (`nft`) is not installed, so this row cannot drop packets (Scripts/setup installs it)")
        }
        for namespace in [client, server] {
            try await namespace.run("nft", ["add", "table", "inet", "fiberfault"])
            try await namespace.run("nft", ["add", "chain", "inet", "fiberfault", "in", "{ type filter hook input priority 0 ; }"])
            try await namespace.run("nft", ["add", "rule", "inet", "fiberfault", "in",
                                                 "numgen", "random", "mod", "100", "<", "\(percent)", "drop"])
        }
        return "nftables drops \(percent) % on arrival each way"
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
