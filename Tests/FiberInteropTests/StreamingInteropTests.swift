import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Streamed response bodies and their backpressure against a real nginx: what
/// the client reads from its socket while the consumer does not read, and what
/// happens to the connection after a stream.
///
/// `downloadProgress` reports the bytes the connection has read from the
/// socket, which is what `streamHighWatermark` bounds.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct StreamingInteropTests {
    static let server = """
        location = /hello { default_type text/plain; return 200 "Hello, world!"; }
        location /files/ { }
        # Head and a 36 KiB body written by nginx in one writev: one read for the client.
        location = /inline36k { default_type application/octet-stream; return 200 "$k16$k16$k4"; }
        set $k1 "\(String(repeating: "y", count: 1024))";
        set $k4 "$k1$k1$k1$k1";
        set $k16 "$k4$k4$k4$k4";
        location /gz/ {
            alias {{ROOT}}/files/;
            gzip on; gzip_types text/plain; gzip_min_length 1; gzip_comp_level 1;
        }
        """

    static let big = randomBytes(count: 8 * 1024 * 1024, seed: 99)
    static let small = randomBytes(count: 40 * 1024, seed: 98)
    /// Text of about 12 MiB; gzip (level 1) leaves a few MiB.
    static let text = compressibleText(lines: 200_000)

    static func prepare(_ root: String) throws {
        try write(big, to: root + "/files/big.bin")
        try write(small, to: root + "/files/small.bin")
        try write(text, to: root + "/files/text.txt")
    }

    func withServer(_ body: (NginxServer) async throws -> Void) async throws {
        try await withNginx(server: Self.server, prepare: Self.prepare, body)
    }

    /// The most bytes the connection may read ahead of a consumer that reads nothing:
    /// the watermark, plus the read that crossed it (64 KiB), plus slack for the head.
    static func readAheadLimit(_ watermark: Int) -> Int { watermark + 64 * 1024 + 16 * 1024 }

    @Test func plainStreamStopsReadingWhileTheConsumerWaits() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.streamHighWatermark = 256 * 1024 }) { client in
                var options = HTTPClient.RequestOptions()
                let progress = ProgressLog()
                options.downloadProgress = progress.callback
                let response = try await client.stream(request(nginx.url("/files/big.bin")), options: options)
                try await Task.sleep(for: .milliseconds(500))
                let readAhead = progress.last?.0 ?? 0
                #expect(readAhead <= Self.readAheadLimit(256 * 1024), "read \(readAhead) bytes that nobody consumed")
                #expect(await client.statistics().leased == 1)

                var received: [UInt8] = []
                for try await chunk in response.body { received += chunk }
                #expect(received == Self.big)
                #expect(progress.last?.0 == Self.big.count)
            }
        }
    }

    /// Client bug: a gzip'd stream is inflated by a task that drains the
    /// compressed body as fast as the socket delivers it into an unbounded
    /// buffer, so `streamHighWatermark` never applies.
    @Test func gzipStreamStopsReadingWhileTheConsumerWaits() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.streamHighWatermark = 256 * 1024 }) { client in
                var options = HTTPClient.RequestOptions()
                let progress = ProgressLog()
                options.downloadProgress = progress.callback
                let response = try await client.stream(request(nginx.url("/gz/text.txt")), options: options)
                #expect(response.headers["Content-Encoding"] == "gzip")
                try await Task.sleep(for: .milliseconds(500))
                let readAhead = progress.last?.0 ?? 0
                #expect(readAhead <= Self.readAheadLimit(256 * 1024),
                        "read \(readAhead) compressed bytes that nobody consumed (the watermark is 256 KiB)")
                #expect(await client.statistics().leased == 1, "the whole body was read while nobody consumed it")

                var received: [UInt8] = []
                for try await chunk in response.body { received += chunk }
                #expect(received == Self.text)
            }
        }
    }

    /// Client bug: when the read that pauses the socket (the consumer is behind
    /// by the high watermark) also ends the response, the connection goes back
    /// to the pool with reading stopped, and the next request on it never sees
    /// its response (`.readTimeout`, or a hang without a read timeout).
    @Test func connectionIsReusableAfterAStreamThatFilledTheBuffer() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.streamHighWatermark = 16 * 1024; $0.readIdleTimeout = .seconds(3) }) { client in
                for round in 1...3 {
                    // The whole response comes in one read while nobody reads the
                    // body: past 16 KiB, the stream pauses, and the response ends.
                    let response = try await client.stream(request(nginx.url("/inline36k")))
                    try await Task.sleep(for: .milliseconds(100))
                    var received: [UInt8] = []
                    for try await chunk in response.body { received += chunk }
                    #expect(received == [UInt8](repeating: UInt8(ascii: "y"), count: 36 * 1024))
                    let statistics = await waitForStatistics(client) { $0.idle == 1 }
                    #expect(statistics.open == 1 && statistics.idle == 1, "\(statistics)")

                    let next = try await client.execute(request(nginx.url("/hello")))
                    #expect(next.text == "Hello, world!", "round \(round)")
                    #expect(next.timing.reusedConnection, "round \(round)")
                }
            }
        }
    }

    /// Probable client bug: the read-idle timer keeps running while the client
    /// itself has stopped reading for a slow consumer, so a consumer pausing
    /// longer than `readIdleTimeout` gets `.readTimeout` although nginx was
    /// waiting to send all along.
    @Test func slowConsumerIsNotAReadTimeout() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.readIdleTimeout = .seconds(1) }) { client in
                let response = try await client.stream(request(nginx.url("/files/big.bin")))
                var iterator = response.body.makeAsyncIterator()
                var received = try await iterator.next() ?? []
                try await Task.sleep(for: .milliseconds(1500))
                while let chunk = try await iterator.next() { received += chunk }
                #expect(received == Self.big)
            }
        }
    }

    /// Client bug: `HTTPClientStreamingResponse.body` says "iterate it to the
    /// end (or drop it) so the connection can be reused or closed", but a
    /// dropped body larger than the buffers keeps its connection leased (until
    /// the read-idle timeout, if any, closes it).
    @Test func droppedStreamReleasesItsConnection() async throws {
        try await withServer { nginx in
            try await withClient(configure: { $0.readIdleTimeout = .seconds(20) }) { client in
                do {
                    let response = try await client.stream(request(nginx.url("/files/big.bin")))
                    #expect(response.status == 200)
                }
                let statistics = await waitForStatistics(client, timeout: .seconds(3)) { $0.leased == 0 }
                #expect(statistics.leased == 0, "the connection of a dropped stream is still leased: \(statistics)")
                let next = try await client.execute(request(nginx.url("/hello")))
                #expect(next.text == "Hello, world!")
            }
        }
    }
}
