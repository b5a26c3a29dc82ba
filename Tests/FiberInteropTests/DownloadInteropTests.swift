import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Static files (nginx's sendfile), streamed bodies, ranges, gzip and chunked
/// responses, against a real nginx. Every body is compared byte for byte with
/// the file the test wrote (and its Adler-32, for shorter failure messages).
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct DownloadInteropTests {
    static let server = """
        location /files/ { }
        location /gz/ {
            alias {{ROOT}}/files/;
            gzip on; gzip_types text/plain application/json; gzip_min_length 1; gzip_comp_level 6;
        }
        # sub_filter drops Content-Length: an identity body sent chunked.
        location /sub/ {
            alias {{ROOT}}/files/;
            sub_filter "item-" "ITEM-"; sub_filter_once off; sub_filter_types text/plain;
        }
        location = /gz-hello {
            gzip on; gzip_types text/plain; gzip_min_length 1;
            default_type text/plain; return 200 "Hello, world!";
        }
        location = /echo-accept-encoding { default_type text/plain; return 200 "[$http_accept_encoding]"; }
        """

    /// 5 MiB and a bit (not a multiple of any buffer size), incompressible.
    static let binary = randomBytes(count: 5 * 1024 * 1024 + 4321)
    /// About 4.5 MiB of text that gzip shrinks well.
    static let text = compressibleText(lines: 75_000)

    static func prepare(_ root: String) throws {
        try write(binary, to: root + "/files/big.bin")
        try write(text, to: root + "/files/records.txt")
        try write(Array(text[0..<100_000]), to: root + "/files/records.json")
    }

    func withServer(_ body: (NginxServer) async throws -> Void) async throws {
        try await withNginx(server: Self.server, prepare: Self.prepare, body)
    }

    @Test func staticFileIsByteExact() async throws {
        try await withServer { nginx in
            try await withClient { client in
                var options = HTTPClient.RequestOptions()
                let progress = ProgressLog()
                options.downloadProgress = progress.callback
                let response = try await client.execute(request(nginx.url("/files/big.bin")), options: options)
                #expect(response.status == 200)
                #expect(response.headers["Content-Length"] == String(Self.binary.count))
                #expect(response.headers["Transfer-Encoding"] == nil)
                #expect(response.body.count == Self.binary.count)
                #expect(adler32(response.body) == adler32(Self.binary))
                #expect(response.body == Self.binary)
                #expect(progress.last.map { $0.0 == Self.binary.count && $0.1 == Self.binary.count } == true,
                        "last download progress \(String(describing: progress.last))")
                #expect(progress.isMonotonic)
                #expect(response.timing.firstByte > .zero)
                #expect(response.timing.total >= response.timing.firstByte)

                let again = try await client.execute(request(nginx.url("/files/big.bin")))
                #expect(again.timing.reusedConnection)
                #expect(again.body == Self.binary)
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test(arguments: [false, true])
    func staticFileStreamedIsByteExact(slowConsumer: Bool) async throws {
        try await withServer { nginx in
            try await withClient { client in
                let response = try await client.stream(request(nginx.url("/files/big.bin")))
                #expect(response.status == 200)
                #expect(response.headers["Content-Length"] == String(Self.binary.count))
                #expect(response.timing.firstByte > .zero)
                var adler = RunningAdler32()
                var received: [UInt8] = []
                var chunks = 0
                for try await chunk in response.body {
                    adler.update(chunk)
                    received += chunk
                    chunks += 1
                    // A consumer slower than loopback: the client must stop reading and resume.
                    if slowConsumer, chunks % 8 == 0 { try await Task.sleep(for: .milliseconds(2)) }
                }
                #expect(adler.count == Self.binary.count)
                #expect(adler.value == adler32(Self.binary))
                #expect(received == Self.binary)
                // Read to its end, the connection goes back to the pool (reusing it:
                // StreamingInteropTests.connectionIsReusableAfterAStreamThatFilledTheBuffer).
                let statistics = await waitForStatistics(client) { $0.idle == 1 }
                #expect(statistics.open == 1 && statistics.idle == 1, "\(statistics)")
            }
        }
    }

    @Test func headOfAStaticFile() async throws {
        try await withServer { nginx in
            try await withClient { client in
                let head = try await client.execute(request(nginx.url("/files/big.bin"), method: "HEAD"))
                #expect(head.status == 200)
                #expect(head.headers["Content-Length"] == String(Self.binary.count))
                #expect(head.headers["Last-Modified"] != nil)
                #expect(head.body.isEmpty)
                let streamed = try await client.stream(request(nginx.url("/files/big.bin"), method: "HEAD"))
                var bytes = 0
                for try await chunk in streamed.body { bytes += chunk.count }
                #expect(bytes == 0)
                let get = try await client.execute(request(nginx.url("/files/records.json")))
                #expect(get.timing.reusedConnection)
                #expect(get.body == Array(Self.text[0..<100_000]))
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func rangeRequest() async throws {
        try await withServer { nginx in
            try await withClient { client in
                let response = try await client.execute(request(nginx.url("/files/big.bin"), headers: ["Range": "bytes=1000-1999"]))
                #expect(response.status == 206)
                #expect(response.headers["Content-Range"] == "bytes 1000-1999/\(Self.binary.count)")
                #expect(response.body == Array(Self.binary[1000..<2000]))
                let tail = try await client.execute(request(nginx.url("/files/big.bin"), headers: ["Range": "bytes=-10"]))
                #expect(tail.body == Array(Self.binary.suffix(10)))
                #expect(tail.timing.reusedConnection)
            }
        }
    }

    @Test func gzipIsInflatedTransparently() async throws {
        try await withServer { nginx in
            try await withClient { client in
                let sent = try await client.execute(request(nginx.url("/echo-accept-encoding")))
                #expect(sent.text == "[\(HTTPClient.contentCodings.joined(separator: ", "))]")

                for path in ["/gz/records.txt", "/gz/records.json"] {
                    let expected = path.hasSuffix("txt") ? Self.text : Array(Self.text[0..<100_000])
                    let response = try await client.execute(request(nginx.url(path)))
                    #expect(response.status == 200)
                    #expect(response.headers["Content-Encoding"] == "gzip", "\(response.headers)")
                    // nginx compresses on the fly: no Content-Length, a chunked body.
                    #expect(response.headers["Content-Length"] == nil)
                    #expect(response.headers["Transfer-Encoding"] == "chunked")
                    #expect(response.body.count == expected.count)
                    #expect(response.body == expected)
                    #expect(response.timing.reusedConnection)
                }
                let hello = try await client.execute(request(nginx.url("/gz-hello")))
                #expect(hello.headers["Content-Encoding"] == "gzip")
                #expect(hello.text == "Hello, world!")
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func gzipStreamedIsInflated() async throws {
        try await withServer { nginx in
            try await withClient { client in
                for _ in 0..<2 {
                    let response = try await client.stream(request(nginx.url("/gz/records.txt")))
                    #expect(response.headers["Content-Encoding"] == "gzip")
                    var received: [UInt8] = []
                    for try await chunk in response.body { received += chunk }
                    #expect(received.count == Self.text.count)
                    #expect(received == Self.text)
                }
                let statistics = await waitForStatistics(client) { $0.idle == 1 }
                #expect(statistics.open == 1 && statistics.idle == 1, "\(statistics)")
            }
        }
    }

    @Test func withoutDecompressionTheBodyIsWhatNginxSent() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.decompression = false }) { client in
                // No Accept-Encoding is sent, so nginx does not compress.
                let sent = try await client.execute(request(nginx.url("/echo-accept-encoding")))
                #expect(sent.text == "[]")
                let plain = try await client.execute(request(nginx.url("/gz/records.txt")))
                #expect(plain.headers["Content-Encoding"] == nil)
                #expect(plain.body == Self.text)

                // Asked for by the caller, gzip comes back as it is.
                let gzipped = try await client.execute(request(nginx.url("/gz/records.txt"), headers: ["Accept-Encoding": "gzip"]))
                #expect(gzipped.headers["Content-Encoding"] == "gzip")
                #expect(gzipped.headers["Transfer-Encoding"] == "chunked")
                #expect(gzipped.body.count < Self.text.count / 3, "\(gzipped.body.count) compressed bytes")
                #expect(Array(gzipped.body.prefix(2)) == [0x1F, 0x8B], "a gzip member starts with 1f 8b")
                #expect(try gunzip(gzipped.body) == Self.text)

                let streamed = try await client.stream(request(nginx.url("/gz/records.txt"), headers: ["Accept-Encoding": "gzip"]))
                var compressed: [UInt8] = []
                for try await chunk in streamed.body { compressed += chunk }
                #expect(try gunzip(compressed) == Self.text)
            }
        }
    }

    @Test func chunkedIdentityBody() async throws {
        try await withServer { nginx in
            try await withClient { client in
                let expected = Array(String(decoding: Self.text, as: UTF8.self).replacingOccurrences(of: "item-", with: "ITEM-").utf8)
                let response = try await client.execute(request(nginx.url("/sub/records.txt"), headers: ["Accept-Encoding": "identity"]))
                #expect(response.status == 200)
                #expect(response.headers["Transfer-Encoding"] == "chunked")
                #expect(response.headers["Content-Length"] == nil)
                #expect(response.headers["Content-Encoding"] == nil)
                #expect(response.body.count == expected.count)
                #expect(response.body == expected)

                let streamed = try await client.stream(request(nginx.url("/sub/records.txt"), headers: ["Accept-Encoding": "identity"]))
                var received: [UInt8] = []
                for try await chunk in streamed.body { received += chunk }
                #expect(received == expected)
                #expect(await waitForStatistics(client) { $0.idle == 1 }.open == 1)
            }
        }
    }

    /// Client bug: nginx answers this HEAD without Content-Length or
    /// Transfer-Encoding (it would compress on the fly). A response to HEAD has
    /// no body whatever its head says, but the client decides keep-alive before
    /// telling llhttp so, takes the response as close-delimited, and closes a
    /// connection that nginx keeps open.
    @Test func headOfAGzippedResourceLeavesTheConnectionReusable() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.decompression = false }) { client in
                let head = try await client.execute(request(nginx.url("/gz/records.txt"), method: "HEAD", headers: ["Accept-Encoding": "gzip"]))
                #expect(head.status == 200)
                #expect(head.headers["Content-Encoding"] == "gzip")
                #expect(head.headers["Content-Length"] == nil && head.headers["Transfer-Encoding"] == nil)
                #expect(head.headers["Connection"] == "keep-alive", "nginx keeps the connection")
                #expect(head.body.isEmpty)
                let get = try await client.execute(request(nginx.url("/files/records.json")))
                #expect(get.timing.reusedConnection)
                #expect(get.body == Array(Self.text[0..<100_000]))
            }
        }
    }
}
