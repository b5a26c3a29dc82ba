import FiberRuntime
import FiberTesting
import Synchronization
import Testing

@Suite("HTTP client exchanges", .timeLimit(.minutes(1)))
struct ClientExchangeTests {
    @Test func getsStatusHeadersInOrderAndBody() async throws {
        try await withClient { client, server in
            server.route("/hello") { _ in
                TestResponse(status: 201, headers: [("X-Multi", "a"), ("Content-Type", "text/plain"), ("x-multi", "b")].reduce(into: HTTPHeaders()) { $0.append(name: $1.0, value: $1.1) },
                             body: .bytes("Hello, world!".bytes))
            }
            let response = try await client.get(server.url("/hello?x=1"))
            #expect(response.status == 201 && response.reason == "Created")
            #expect(response.headers.values(name: "X-MULTI") == ["a", "b"])
            #expect(response.body == "Hello, world!".bytes)
            #expect(response.timing.firstByte > .zero && response.timing.total >= response.timing.firstByte)
            let request = try #require(server.lastRequest)
            #expect(request.method == "GET" && request.target == "/hello?x=1")
            #expect(request.header("Host") == "127.0.0.1:\(server.port)")
            #expect(request.header("Accept-Encoding") == HTTPClient.contentCodings.joined(separator: ", "))
        }
    }

    @Test func httpsToAPlainServerFailsTheHandshakeAndSendsNoPlaintext() async throws {
        try await withClient { client, server in
            await expectHTTPError(.tls) { _ = try await client.get("https://127.0.0.1:\(server.port)/") }
            // The server saw a ClientHello (answered 400), never a request.
            #expect(server.requestCount == 0)
        }
    }

    @Test func keepAliveReusesOneConnection() async throws {
        try await withClient { client, server in
            server.route("/") { _ in .ok("x") }
            for i in 0..<5 {
                let response = try await client.get(server.url("/"))
                #expect(response.timing.reusedConnection == (i > 0))
            }
            #expect(Set(server.recordedRequests().map(\.connectionNumber)).count == 1)
            #expect(await client.statistics() == ConnectionPoolStatistics(open: 1, idle: 1))
        }
    }

    @Test func connectionCloseAndHTTP10AreNotReused() async throws {
        try await withClient { client, server in
            server.route("/close") { _ in TestResponse.ok("x").withHeader("Connection", "close") }
            server.route("/old") { _ in .raw("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: true) }
            for path in ["/close", "/close", "/old", "/old"] { _ = try await client.get(server.url(path)) }
            #expect(server.connectionCount == 4)
        }
    }

    @Test func chunkedWithTrailersAndCloseDelimitedBodies() async throws {
        try await withClient { client, server in
            server.route("/chunked", respond: .chunked(["hel".bytes, "lo".bytes], trailers: ["X-Checksum": "abc"]))
            server.route("/close-delimited", respond: .closeDelimited("until the end"))
            let value1 = try await client.get(server.url("/chunked")).body
            #expect(value1 == "hello".bytes)
            let value2 = try await client.get(server.url("/close-delimited")).body
            #expect(value2 == "until the end".bytes)
            let value3 = try await client.get(server.url("/chunked")).body
            #expect(value3 == "hello".bytes)
        }
    }

    @Test func interimResponsesAreSkipped() async throws {
        try await withClient { client, server in
            server.route("/", respond: .raw("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: false))
            let response = try await client.get(server.url("/"))
            #expect(response.status == 200 && response.body == "ok".bytes)
            _ = try await client.get(server.url("/"))
            #expect(server.connectionCount == 1)
        }
    }

    @Test func headTwoOhFourAndThreeOhFourHaveNoBody() async throws {
        try await withClient { client, server in
            server.route("/doc", respond: .ok("a body of 17 bytes"))
            server.route("/empty") { _ in .status(204) }
            server.route("/same") { _ in .status(304) }
            let head = try await client.execute(HTTPClientRequest(url: server.url("/doc"), method: "HEAD"))
            #expect(head.status == 200 && head.body.isEmpty && head.headers["Content-Length"] == "18")
            let value4 = try await client.get(server.url("/empty")).body.isEmpty
            #expect(value4)
            let value5 = try await client.get(server.url("/same")).status
            #expect(value5 == 304)
            let value6 = try await client.get(server.url("/doc")).body
            #expect(value6 == "a body of 17 bytes".bytes)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func forbiddenHeaderCharactersAreRefusedBeforeSending() async throws {
        try await withClient { client, server in
            server.route("/") { _ in .ok() }
            for value in ["a\r\nX-Injected: 1", "a\nb", "nul\u{0}"] {
                await expectHTTPError(.invalidHeader) { _ = try await client.get(server.url("/"), headers: ["X-Value": value]) }
            }
            await expectHTTPError(.invalidHeader) { _ = try await client.get(server.url("/"), headers: ["Bad\r\nName": "v"]) }
            #expect(server.requestCount == 0 && server.connectionCount == 0)
        }
    }

    @Test func requestBodiesFromBytesStreamsAndFiles() async throws {
        try await withClient { client, server in
            server.route("POST", "/echo") { request in
                .ok("\(request.header("Content-Length") ?? "-") \(request.header("Transfer-Encoding") ?? "-") \(request.body.count) \(request.bodyText.prefix(10))")
            }
            let bytes = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .string("0123456789abc")))
            #expect(String(decoding: bytes.body, as: UTF8.self) == "13 - 13 0123456789")
            let chunks: [[UInt8]] = ["0123".bytes, [], "456789".bytes, "xyz".bytes]
            let streamed = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST",
                                                                      body: .stream { chunks.async }))
            #expect(String(decoding: streamed.body, as: UTF8.self) == "- chunked 13 0123456789")
            let sized = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST",
                                                                   body: .stream(length: 13) { chunks.async }))
            #expect(String(decoding: sized.body, as: UTF8.self) == "13 - 13 0123456789")
            let path = "/tmp/fiber-upload-\(UInt32.random(in: 0...UInt32.max))"
            let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try writeFile(path, content)
            defer { removeFile(path) }
            let progress = Locked<[Int]>([])
            var options = HTTPClient.RequestOptions()
            options.uploadProgress = { sent, total in progress.withLock { $0.append(sent); _ = total } }
            let file = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .file(path: path)), options: options)
            #expect(String(decoding: file.body, as: UTF8.self).hasPrefix("300000 - 300000"))
            #expect(server.lastRequest?.body == content)
            let sent = progress.withLock { $0 }
            #expect(sent.last == 300_000 && sent == sent.sorted())
            await expectHTTPError(.requestBody) {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .file(path: "/nonexistent/file")))
            }
        }
    }

    @Test func mismatchedStreamLengthFailsTheRequest() async throws {
        try await withClient { client, server in
            server.route("POST", "/echo") { _ in .ok() }
            await expectHTTPError(.requestBody) {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST",
                                                               body: .stream(length: 100) { [[1, 2, 3]].async }))
            }
        }
    }

    @Test func collectedBodiesAreLimited() async throws {
        try await withClient(configure: { $0.maxResponseBodySize = 1000 }) { client, server in
            server.route("/big", respond: .bytes([UInt8](repeating: 1, count: 5000)))
            server.route("/big-chunked", respond: .chunked([[UInt8](repeating: 1, count: 600), [UInt8](repeating: 1, count: 600)]))
            await expectHTTPError(.bodyTooLarge) { _ = try await client.get(server.url("/big")) }
            await expectHTTPError(.bodyTooLarge) { _ = try await client.get(server.url("/big-chunked")) }
            var options = HTTPClient.RequestOptions()
            options.maxResponseBodySize = 10_000
            let value7 = try await client.get(server.url("/big"), options: options).body.count
            #expect(value7 == 5000)
        }
    }

    @Test func streamedResponsesArriveInChunksWithProgress() async throws {
        try await withClient { client, server in
            server.route("/stream", respond: .stream { writer in
                for i in 0..<20 {
                    try await writer.write([UInt8](repeating: UInt8(i), count: 10_000))
                    try await writer.sleep(for: .milliseconds(2))
                }
            })
            let progress = Locked<Int>(0)
            var options = HTTPClient.RequestOptions()
            options.downloadProgress = { received, _ in progress.withLock { $0 = received } }
            let response = try await client.stream(HTTPClientRequest(url: server.url("/stream")), options: options)
            #expect(response.status == 200)
            var total = 0, chunks = 0
            for try await chunk in response.body {
                total += chunk.count
                chunks += 1
            }
            #expect(total == 200_000 && chunks > 1)
            #expect(progress.withLock { $0 } == 200_000)
        }
    }

    @Test func decompressesGzipAndDeflate() async throws {
        let text = String(repeating: "compress me, please. ", count: 400).bytes
        try await withClient { client, server in
            server.route("/gzip", respond: .bytes(compress(text, windowBits: 31), headers: ["Content-Encoding": "gzip"]))
            server.route("/deflate", respond: .bytes(compress(text, windowBits: 15), headers: ["Content-Encoding": "deflate"]))
            server.route("/corrupt", respond: .bytes([1, 2, 3, 4, 5, 6], headers: ["Content-Encoding": "gzip"]))
            server.route("/bomb", respond: .bytes(compress([UInt8](repeating: 0, count: 20 << 20), windowBits: 31),
                                                         headers: ["Content-Encoding": "gzip"]))
            let value8 = try await client.get(server.url("/gzip")).body
            #expect(value8 == text)
            let value9 = try await client.get(server.url("/deflate")).body
            #expect(value9 == text)
            let streamed = try await client.stream(HTTPClientRequest(url: server.url("/gzip")))
            let value10 = try await streamed.body.collect()
            #expect(value10 == text)
            await expectHTTPError(.decompressionFailed) { _ = try await client.get(server.url("/corrupt")) }
            await expectHTTPError(.decompressionFailed) { _ = try await client.get(server.url("/bomb")) }
        }
        try await withClient(configure: { $0.decompression = false }) { client, server in
            let gz = compress(text, windowBits: 31)
            server.route("/gzip", respond: .bytes(gz, headers: ["Content-Encoding": "gzip"]))
            let value11 = try await client.get(server.url("/gzip")).body
            #expect(value11 == gz)
            #expect(server.lastRequest?.header("Accept-Encoding") == nil)
        }
    }
}

extension Array where Element: Sendable {
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
