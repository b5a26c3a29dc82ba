import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A `Data` request body goes out as it is, with the head in one vectored write: small, large
/// enough that the kernel takes it in parts, a slice of a larger `Data`, and resent on a 307.
@Suite("Data request bodies", .timeLimit(.minutes(1)))
struct DataRequestBodyTests {
    static let large = Data(patternedBytes(8 << 20, seed: 4))

    @Test func dataBodiesArriveWhole() async throws {
        try await withClient { client, server in
            server.route("POST", "/echo") { request in
                .ok("\(request.header("Content-Length") ?? "-") \(request.header("Transfer-Encoding") ?? "-") \(request.body.count)")
            }
            let small = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST",
                                                                   body: .data(Data("0123456789abc".utf8))))
            #expect(String(decoding: small.body, as: UTF8.self) == "13 - 13")
            #expect(server.lastRequest?.body == Array("0123456789abc".utf8))

            let progress = Locked<[Int]>([])
            var options = HTTPClient.RequestOptions()
            options.uploadProgress = { sent, _ in progress.withLock { $0.append(sent) } }
            let large = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .data(Self.large)),
                                                 options: options)
            #expect(String(decoding: large.body, as: UTF8.self) == "8388608 - 8388608")
            #expect(server.lastRequest.map { Data($0.body) } == Self.large)
            #expect(progress.withLock { $0 } == [8 << 20])

            let slice = Self.large[1_000..<71_000]  // a slice: its indices do not start at zero
            _ = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .data(slice)))
            #expect(server.lastRequest.map { Data($0.body) } == slice)

            let empty = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .data(Data())))
            #expect(String(decoding: empty.body, as: UTF8.self) == "0 - 0")
        }
    }

    @Test func aDataBodyIsResentOnA307() async throws {
        try await withClient { client, server in
            server.route("/moved", respond: .redirect(to: "/target", status: 307))
            server.route("/target") { request in .ok("\(request.method) \(request.body.count)") }
            let response = try await client.execute(HTTPClientRequest(url: server.url("/moved"), method: "PUT",
                                                                      body: .data(Self.large)))
            #expect(String(decoding: response.body, as: UTF8.self) == "PUT 8388608" && response.redirectCount == 1)
            #expect(server.lastRequest.map { Data($0.body) } == Self.large)
        }
    }
}
