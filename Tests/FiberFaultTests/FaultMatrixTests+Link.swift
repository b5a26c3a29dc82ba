import FiberRuntime
import FiberTesting
import Testing

/// The rows where the link itself fails: it goes down mid-transfer, or an address never answers.
extension FaultMatrixTests {
    /// Down for longer than the read-idle timeout: the streamed download fails
    /// with `.readTimeout` about that long after its last byte; once the link is
    /// back, the next request to the same server succeeds on a new connection.
    @Test("7a. Link down mid-transfer, past the read-idle timeout") func linkDownPastTimeout() async throws {
        try await faultRow("7a", "link down mid-transfer for 4 s, read-idle timeout 1.5 s") { log in
            try await withFaultRig(row: 7, configure: { $0.readIdleTimeout = .milliseconds(1500) }) { rig in
                let expected = FaultRig.files["2m.bin"]!
                let network = rig.network
                let downAt = Locked<ContinuousClock.Instant?>(nil)
                await expectError(.readTimeout) {
                    try await bounded(.seconds(20), "the interrupted download") {
                        try await rig.stream("/slow/2m.bin", expected: expected) { received in
                            guard received >= 256 * 1024, downAt.withLock({ $0 == nil }) else { return }
                            try await network.setLink(up: false)
                            downAt.withLock { $0 = .now }
                        }
                    }
                }
                if let down = downAt.withLock({ $0 }) { log.note("link down; read timeout", after: .now - down) }
                #expect(downAt.withLock { $0 } != nil, "the link went down mid-transfer")
                // While it is down, a new connection fails at once: the route is gone with the link.
                let unreachable = await log.timed("a new request while the link is down") {
                    await expectError(.transport) { try await rig.small() }
                }
                #expect(unreachable?.transport?.kind == .unreachable, "\(String(describing: unreachable))")
                try await Task.sleep(for: .seconds(4) - (.now - (downAt.withLock { $0 } ?? .now)))
                try await network.setLink(up: true)
                var options = HTTPClient.RequestOptions()
                options.timeout = .seconds(20)
                let response = try await log.timed("link up; GET 1 MiB from nginx") {
                    try await rig.client.execute(HTTPClientRequest(url: rig.nginxURL("/files/1m.bin")), options: options)
                }
                #expect(response.body == FaultRig.files["1m.bin"]!)
                #expect(!response.timing.reusedConnection, "the request after the failure used a new connection")
            }
        }
    }

    /// Down for 0.7 s, well inside the 5 s read-idle timeout: TCP retransmits once
    /// the link is back and the download finishes intact, on its first connection.
    @Test("7b. Link down mid-transfer, back within the read-idle timeout") func linkDownAndBackInTime() async throws {
        try await faultRow("7b", "link down mid-transfer for 0.7 s, read-idle timeout 5 s") { log in
            try await withFaultRig(row: 8, configure: { $0.readIdleTimeout = .seconds(5) }) { rig in
                let expected = FaultRig.files["2m.bin"]!
                let network = rig.network
                let bounced = Locked(false)
                let result = try await log.timed("streamed 2 MiB at 512 KiB/s across the outage") {
                    try await bounded(.seconds(30), "the interrupted download") {
                        try await rig.stream("/slow/2m.bin", expected: expected) { received in
                            guard received >= 256 * 1024, !bounced.withLock({ $0 }) else { return }
                            bounced.withLock { $0 = true }
                            try await network.setLink(up: false)
                            try await Task.sleep(for: .milliseconds(700))
                            try await network.setLink(up: true)
                        }
                    }
                }
                #expect(bounced.withLock { $0 })
                #expect(result.count == expected.count && result.intact, "\(result.count) bytes, intact: \(result.intact)")
            }
        }
    }

    /// Down mid-upload, with no request timeout: the peer stops taking the body and no
    /// byte of a response arrives, so the read-idle timeout fails the POST (one to two
    /// periods after the last byte the peer took), and the POST is not sent again,
    /// neither then nor once the link is back.
    @Test("7c. Link down mid-upload") func linkDownMidUpload() async throws {
        try await faultRow("7c", "link down mid-upload (2 Mbit/s from the client), read-idle timeout 1.5 s") { log in
            try await withFaultRig(row: 12, configure: { $0.readIdleTimeout = .milliseconds(1500) }) { rig in
                try await rig.network.limitClientRate("2mbit")
                let network = rig.network
                // 4 MiB at 2 Mbit/s take 16 s: a second in, the upload is well under way.
                let body = patternedBytes(4 * 1024 * 1024, seed: 7)
                let request = try HTTPClientRequest(url: rig.serverURL("/upload"), method: "POST", body: .bytes(body))
                let client = rig.client
                let upload = Task { try await client.execute(request) }
                try await Task.sleep(for: .seconds(1))
                try await network.setLink(up: false)
                let downAt = ContinuousClock.now
                await expectError(.readTimeout) { try await bounded(.seconds(20), "the interrupted upload") { try await upload.value } }
                log.note("link down; POST failed", after: .now - downAt)
                try await network.setLink(up: true)
                try await Task.sleep(for: .seconds(1))
                #expect(rig.requestsReceived("/upload") == 0, "the cut POST never arrived whole, and was not sent again")
                try await rig.network.inClient("tc", ["qdisc", "del", "dev", network.clientSide, "root"])
                try await rig.upload(64 * 1024, log: log)
            }
        }
    }

    /// An address that drops every packet (no RST, no ICMP): the connect fails with
    /// the connect-timeout error when its timeout passes, not before, not never.
    @Test("8a. Black-holed address: the connect timeout") func blackHoleTimesOut() async throws {
        try await faultRow("8a", "black-holed IPv4 address, connect timeout 1 s") { log in
            try await withFaultRig(row: 10, configure: { $0.socket.connectTimeout = .seconds(1) }) { rig in
                let error = try await log.timed("connect to the black hole") {
                    try await bounded(.seconds(10), "the connect") {
                        await expectError(.transport) {
                            try await rig.client.execute(HTTPClientRequest(url: "http://\(rig.network.silentIPv4):80/"))
                        }
                    }
                }
                #expect(error?.transport?.kind == .timeout && error?.transport?.operation == "connect", "\(String(describing: error))")
                // A request deadline shorter than the connect timeout ends the connect as the deadline.
                var options = HTTPClient.RequestOptions()
                options.timeout = .milliseconds(300)
                _ = await log.timed("connect under a 300 ms deadline") {
                    await expectError(.deadlineExceeded) {
                        try await rig.client.execute(HTTPClientRequest(url: "http://\(rig.network.silentIPv4):80/"), options: options)
                    }
                }
            }
        }
    }

    /// A name whose first address (IPv6) is black-holed and whose second (IPv4)
    /// answers: Happy Eyeballs starts the second after its 250 ms delay and
    /// connects, long before the 5 s connect timeout (reached, it would fail the request).
    @Test("8b. Happy Eyeballs past a black-holed IPv6 address") func happyEyeballsPastBlackHole() async throws {
        try await faultRow("8b", "name → black-holed IPv6, then answering IPv4; Happy Eyeballs delay 250 ms, connect timeout 5 s") { log in
            try await withFaultRig(row: 11) { rig in
                let network = rig.network
                let resolver = Resolver(cacheTTL: .zero, hosts: ["faults.fiber.test": [
                    SocketAddress(ipLiteral: network.silentIPv6, port: 0)!, SocketAddress(ipLiteral: network.serverIPv4, port: 0)!,
                ]])
                var configuration = HTTPClient.Configuration()
                configuration.resolver = resolver
                configuration.socket.connectTimeout = .seconds(5)
                let group = EventLoopGroup(loopCount: 1, name: "fault-eyeballs")
                try await network.joinClient(group.loops[0])
                let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
                let response = try await log.timed("GET by name") {
                    try await client.execute(HTTPClientRequest(url: "http://faults.fiber.test:\(rig.server.port)/small"))
                }
                log.note("connected (timing.connect)", after: response.timing.connect ?? .zero)
                #expect(response.status == 200 && rig.requestsReceived("/small") == 1)
                #expect(rig.server.lastRequest?.header("Host") == "faults.fiber.test:\(rig.server.port)")
                await client.shutdown()
                let leaked = try await group.leakedHandles(within: .seconds(2))
                #expect(leaked.isEmpty, "the losing IPv6 attempt's socket is closed: \(leaked)")
                try await group.shutdown()
            }
        }
    }
}
