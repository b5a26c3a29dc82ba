import FiberRuntime
import FiberTesting
import Testing

/// The client over a real, faulty network: each row makes two network
/// namespaces, one with the project's test server and nginx, one the client's
/// loop joins, links them by a veth pair or a delay line (latency, reordering),
/// applies one fault with `tc`, `ip` or `nft` (loss, a token bucket, the link
/// going down, a black hole, a small MTU) and runs requests
/// and transfers across. Every row checks that requests finish, or fail with the
/// right typed error, within their bounds; that bodies arrive intact; that a
/// POST reaches the server once; and that the pool is at rest and no handle is
/// left afterwards. Rows run one at a time, each on its own link.
///
/// Needs root and iproute2, nftables for the loss rows, TUN devices and python3
/// for the delay line; a row that cannot run here is skipped, saying why.
@Suite("Fault matrix (network namespaces)", .serialized, .timeLimit(.minutes(2)))
struct FaultMatrixTests {
    @Test("1. 100 ms round trip") func latency100ms() async throws {
        try await faultRow("1", "100 ms RTT (a delay line: 50 ms each way)") { log in
            try await withFaultRig(row: 1, link: .delayLine(oneWay: .milliseconds(50))) { rig in
                // The link's round trip is real: a TCP handshake takes one.
                let first = try await log.timed("GET on a new connection") { try await rig.small() }
                let connect = first.timing.connect ?? .zero
                log.note("connected (timing.connect)", after: connect)
                #expect(connect >= .milliseconds(95) && connect < .milliseconds(500), "\(connect)")
                try await rig.download("2m.bin", log: log)
                try await rig.upload(256 * 1024, log: log)
                try await rig.fiberExchanges(log: log)
            }
        }
    }

    @Test("2. 1 s round trip: a deadline shorter than the RTT, then a longer one") func latency1s() async throws {
        try await faultRow("2", "1 s RTT (a delay line: 500 ms each way)") { log in
            try await withFaultRig(row: 2, link: .delayLine(oneWay: .milliseconds(500))) { rig in
                var short = HTTPClient.RequestOptions()
                short.timeout = .milliseconds(600)
                _ = await log.timed("GET with a 600 ms deadline") {
                    await expectError(.deadlineExceeded) { try await rig.small(short) }
                }
                var long = HTTPClient.RequestOptions()
                long.timeout = .seconds(10)
                let response = try await log.timed("GET with a 10 s deadline") { try await rig.small(long) }
                #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "small")
                // The first request never got a connection (its SYN-ACK was 1 s away): nothing to retry, nothing sent twice.
                #expect(rig.requestsReceived("/small") == 1)
                try await rig.upload(64 * 1024, log: log)
            }
        }
    }

    @Test("3. 1 % loss") func loss1Percent() async throws {
        try await faultRow("3", "1 % packet loss") { log in
            try await withFaultRig(row: 3) { rig in
                log.note(try await rig.network.dropRandomly(percent: 1))
                try await rig.download("4m.bin", log: log)
                try await rig.upload(1024 * 1024, log: log)
                try await rig.fiberExchanges(log: log)
            }
        }
    }

    @Test("4. 10 % loss") func loss10Percent() async throws {
        try await faultRow("4", "10 % packet loss") { log in
            try await withFaultRig(row: 4) { rig in
                log.note(try await rig.network.dropRandomly(percent: 10))
                var options = HTTPClient.RequestOptions()
                options.timeout = .seconds(60)
                try await rig.download("1m.bin", log: log, options: options)
                try await rig.upload(256 * 1024, log: log)
                try await rig.fiberExchanges(log: log)
            }
        }
    }

    @Test("5. Reordering") func reordering() async throws {
        try await faultRow("5", "reordering (a delay line: 10 ms each way, 25 % of packets sent at once)") { log in
            try await withFaultRig(row: 5, link: .delayLine(oneWay: .milliseconds(10), reorderPercent: 25)) { rig in
                try await rig.download("4m.bin", log: log)
                try await rig.upload(1024 * 1024, log: log)
                // The link did reorder: a quarter of the packets overtook those held.
                let report = await rig.network.stopDelayLine()
                log.note(report.map(\.description) ?? "the delay line reported nothing")
                #expect((report?.sentEarly ?? 0) > (report?.carried ?? 0) / 10, "\(String(describing: report))")
            }
        }
    }

    /// 1 MiB through a 1 Mbit/s bucket takes about 8.5 s; bytes keep arriving, so the 1 s read-idle timeout never fires.
    @Test("6. 1 Mbit/s bottleneck with a 1 s read-idle timeout") func bottleneck() async throws {
        try await faultRow("6", "1 Mbit/s bottleneck (tbf), read-idle timeout 1 s") { log in
            try await withFaultRig(row: 6, configure: { $0.readIdleTimeout = .seconds(1) }) { rig in
                try await rig.network.limitServerRate("1mbit")
                let expected = FaultRig.files["1m.bin"]!
                let result = try await log.timed("streamed 1 MiB") {
                    try await bounded(.seconds(40), "the 1 MiB download") { try await rig.stream("/files/1m.bin", expected: expected) }
                }
                #expect(result.count == expected.count && result.intact, "\(result.count) bytes, intact: \(result.intact)")
                try await rig.upload(64 * 1024, log: log)
            }
        }
    }

    /// The same bottleneck on the way up: 1 MiB sent at 1 Mbit/s. The server says nothing
    /// until the body is in, and that silence is not the server's: the 1 s read-idle
    /// timeout must not fail an upload that is moving.
    @Test("6b. 1 Mbit/s bottleneck on an upload with a 1 s read-idle timeout") func uploadBottleneck() async throws {
        try await faultRow("6b", "1 Mbit/s bottleneck from the client (tbf), read-idle timeout 1 s") { log in
            try await withFaultRig(row: 13, configure: { $0.readIdleTimeout = .seconds(1) }) { rig in
                try await rig.network.limitClientRate("1mbit")
                try await bounded(.seconds(40), "the 1 MiB upload") { try await rig.upload(1024 * 1024, log: log) }
            }
        }
    }

    /// IPv6 is off below an MTU of 1280, so this row runs over IPv4, with segments of 536 bytes.
    @Test("9. MTU 576: large headers and bodies") func smallMTU() async throws {
        try await faultRow("9", "MTU 576 on both ends (IPv4)") { log in
            try await withFaultRig(row: 9) { rig in
                try await rig.network.setMTU(576)
                try await rig.download("2m.bin", log: log)
                try await rig.upload(1024 * 1024, log: log)
                var headers = HTTPHeaders()
                for i in 0..<48 { headers.append(name: "X-Big-\(i)", value: String(repeating: Character(String(i % 10)), count: 500)) }
                let request = try HTTPClientRequest(url: rig.serverURL("/headers"), headers: headers)
                let response = try await log.timed("24 KiB of request headers, 16 KiB of response headers") {
                    try await rig.client.execute(request)
                }
                let sent = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
                #expect(Int(String(decoding: response.body, as: UTF8.self)) ?? 0 >= sent)
                for i in 0..<32 {
                    #expect(response.headers.first(name: "X-Filler-\(i)") == String(repeating: Character(String(i % 10)), count: 500))
                }
            }
        }
    }
}
