@testable import FiberRuntime
import FiberTesting
import Foundation
import Glibc
import Testing

/// A collected body gathered as `Data` (what `Fiber` hands on, without a copy) holds the same
/// bytes as one gathered as an array, in every framing and coding, and keeps the same limits.
@Suite("Collected bodies", .timeLimit(.minutes(1)))
struct CollectedBodyTests {
    static let large = patternedBytes(1 << 20, seed: 1)
    static let huge = patternedBytes(LargeBodyRegion.threshold * 2 + 7, seed: 2)

    @Test func bothFormsAppendAndReserveAlike() {
        var bytes = CollectedBody(.bytes)
        var data = CollectedBody(.data)
        for part in [[UInt8](), [1, 2, 3], Array(Self.large[..<70_000]), [9]] {
            bytes.reserveCapacity(bytes.count + part.count)
            part.withUnsafeBytes { bytes.append($0); data.append($0) }
        }
        #expect(bytes.count == 70_004 && data.count == 70_004)
        #expect(bytes.array == data.array && bytes.data == data.data)
        guard case .data(let collected) = data else { Issue.record("the data form changed"); return }
        #expect(collected == Data([1, 2, 3] + Self.large[..<70_000] + [9]))
    }

    /// A large declared length gets a region of its own, which becomes `Data` without a copy;
    /// more bytes than declared go on in `Data`; the mapping is gone once nothing holds it.
    @Test func aLargeDeclaredBodyGetsARegionOfItsOwn() throws {
        let size = LargeBodyRegion.threshold + 12_345
        let content = patternedBytes(size, seed: 3)
        var body = CollectedBody(.data)
        body.reserveCapacity(size)
        guard case .region = body else { Issue.record("no region for \(size) bytes"); return }
        for start in stride(from: 0, to: size, by: 65_536) {
            content[start..<min(size, start + 65_536)].withUnsafeBytes { body.append($0) }
        }
        #expect(body.count == size && Data(body.array) == Data(content))
        let address = UInt(bitPattern: body.withUnsafeBytes { $0.baseAddress })
        #expect(Self.isMapped(address))
        do {
            let data = body.data
            #expect(data.count == size && data == Data(content) && body.data.count == size)
            body = CollectedBody(.bytes)
        }
        #expect(!Self.isMapped(address), "the region's mapping outlived its Data")

        var overflowing = CollectedBody(.data)
        overflowing.reserveCapacity(LargeBodyRegion.threshold)
        Array(content[..<LargeBodyRegion.threshold]).withUnsafeBytes { overflowing.append($0) }
        [UInt8]([1, 2, 3]).withUnsafeBytes { overflowing.append($0) }
        guard case .data(let grown) = overflowing else { Issue.record("an overflowing region stayed a region"); return }
        #expect(grown == Data(content[..<LargeBodyRegion.threshold]) + Data([1, 2, 3]))

        var empty = CollectedBody(.data)
        empty.reserveCapacity(LargeBodyRegion.threshold)
        #expect(empty.data.isEmpty && empty.count == 0)
    }

    /// Whether the page holding `address` is mapped (`msync` fails with `ENOMEM` on an unmapped one).
    static func isMapped(_ address: UInt) -> Bool {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        return msync(UnsafeMutableRawPointer(bitPattern: address / page * page), Int(page), MS_ASYNC) == 0
    }

    @Test func dataFormMatchesArrayFormOverTheWire() async throws {
        let gzip = compress(Self.large, windowBits: 31)
        try await withClient { client, server in
            server.route("/empty", respond: .bytes([]))
            server.route("/huge", respond: .bytes(Self.huge))
            server.route("/small", respond: .text("hello, world!"))
            server.route("/large", respond: .bytes(Self.large).dripping(bytes: 65_521, every: .milliseconds(1)))
            server.route("/chunked", respond: .chunked([Array(Self.large[..<5_000]), Array(Self.large[5_000..<90_000])]))
            server.route("/close", respond: .closeDelimited(Array(Self.large[..<30_000])))
            server.route("/gzip", respond: .bytes(gzip, headers: ["Content-Encoding": "gzip"]).dripping(bytes: 4_093, every: .milliseconds(1)))
            server.route("/moved", respond: TestResponse.bytes(gzip, status: 301, headers: ["Content-Encoding": "gzip"]))
            var options = HTTPClient.RequestOptions()
            options.redirects = .never
            for path in ["/empty", "/small", "/large", "/huge", "/chunked", "/close", "/gzip", "/moved"] {
                let request = try HTTPClientRequest(url: server.url(path))
                let array = try await client.execute(request, options: options)
                let (head, data) = try await client.executeCollectingData(request, options: options, on: nil)
                #expect(head.status == array.status && head.body.isEmpty, "\(path)")
                #expect(data == Data(array.body), "\(path): \(data.count) bytes, \(array.body.count) as an array")
            }
            #expect(try await client.executeCollectingData(HTTPClientRequest(url: server.url("/gzip")), options: options, on: nil)
                .data == Data(Self.large))
        }
    }

    /// A large declared body cut short, by a FIN or a reset, fails in the `Data` form as in the
    /// array form (its region is dropped with the exchange), and the client goes on.
    @Test func aLargeDeclaredBodyCutShortFails() async throws {
        try await withClient { client, server in
            server.route("/cut", respond: TestResponse.bytes(Self.huge).closingMidBody(after: 1 << 20))
            server.route("/reset", respond: TestResponse.bytes(Self.huge).resettingMidBody(after: 1 << 20))
            server.route("/small", respond: .text("hello, world!"))
            await expectHTTPError(.connectionClosed) {
                _ = try await client.executeCollectingData(HTTPClientRequest(url: server.url("/cut")), options: .init(), on: nil)
            }
            do {
                _ = try await client.executeCollectingData(HTTPClientRequest(url: server.url("/reset")), options: .init(), on: nil)
                Issue.record("a reset must fail the request")
            } catch let error as HTTPClientError {
                #expect(error.kind == .transport || error.kind == .connectionClosed, "\(error)")
            }
            let after = try await client.executeCollectingData(HTTPClientRequest(url: server.url("/small")), options: .init(), on: nil)
            #expect(after.data == Data("hello, world!".utf8))
        }
    }

    @Test func dataFormKeepsTheBodyLimit() async throws {
        try await withClient { client, server in
            server.route("/big", respond: .chunked([Array(Self.large[..<40_000]), Array(Self.large[40_000..<80_000])]))
            var options = HTTPClient.RequestOptions()
            options.maxResponseBodySize = 50_000
            await expectHTTPError(.bodyTooLarge) {
                _ = try await client.executeCollectingData(HTTPClientRequest(url: server.url("/big")), options: options, on: nil)
            }
        }
    }
}
