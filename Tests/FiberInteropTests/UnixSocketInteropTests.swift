import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// nginx listening on a Unix domain socket beside its loopback port, reached by
/// `http+unix://` URLs and by an origin pinned to the socket; and nginx serving
/// files stored in brotli and zstd under their `Content-Encoding`.
@Suite("nginx on a Unix socket and with br/zstd files", .enabled(if: NginxServer.isInstalled), .timeLimit(.minutes(1)))
struct UnixSocketInteropTests {
    static let text = Array((0..<20_000).map { "record \($0): a line nginx serves\n" }.joined().utf8)

    static let server = """
        listen unix:{{DIR}}/nginx.sock;
        location = /host { default_type text/plain; return 200 "[$http_host]"; }
        location = /accept-encoding { default_type text/plain; return 200 "[$http_accept_encoding]"; }
        location /br/ { types { } default_type text/plain; add_header Content-Encoding br; }
        location /zst/ { types { } default_type text/plain; add_header Content-Encoding zstd; }
        """

    /// The socket path, percent-encoded into an `http+unix` URL.
    private func unixURL(_ nginx: NginxServer, _ path: String) -> String {
        HTTPTarget(scheme: "http+unix", host: nginx.directory + "/nginx.sock", port: 80, pathAndQuery: path).description
    }

    @Test func requestsReachNginxOverItsSocketAndKeepTheConnection() async throws {
        try await withNginx(server: Self.server, prepare: { root in
            try Data(Self.text).write(to: URL(fileURLWithPath: root + "/records.txt"))
        }) { nginx in
            try await withClient { client in
                let host = try await client.execute(request(unixURL(nginx, "/host")))
                #expect(host.text == "[localhost]")
                let file = try await client.execute(request(unixURL(nginx, "/records.txt")))
                #expect(file.status == 200 && file.body == Self.text)
                #expect(file.timing.reusedConnection)
                let streamed = try await client.stream(request(unixURL(nginx, "/records.txt")))
                var all: [UInt8] = []
                for try await chunk in streamed.body { all += chunk }
                #expect(all == Self.text)
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func anOriginPinnedToTheSocketKeepsItsHostHeader() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient(configure: { $0.unixSocketOrigins = ["http://nginx.invalid": nginx.directory + "/nginx.sock"] }) { client in
                let response = try await client.execute(request("http://nginx.invalid/host"))
                #expect(response.text == "[nginx.invalid]")
            }
        }
    }

    /// Files stored compressed, served with their coding: the client advertises it and decodes it.
    @Test func brotliAndZstdFilesFromNginxAreDecoded() async throws {
        var files: [(path: String, coding: String, bytes: [UInt8])] = []
        #if Brotli
        files.append(("/br/records.txt", "br", try await CompressionTool.brotli(Self.text)))
        #endif
        #if Zstd
        files.append(("/zst/records.txt", "zstd", try await CompressionTool.zstd(Self.text)))
        #endif
        try await withNginx(server: Self.server, prepare: { root in
            for file in files {
                try FileManager.default.createDirectory(atPath: root + (file.path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try Data(file.bytes).write(to: URL(fileURLWithPath: root + file.path))
            }
        }) { nginx in
            try await withClient { client in
                let advertised = try await client.execute(request(nginx.url("/accept-encoding")))
                #expect(advertised.text == "[\(HTTPClient.contentCodings.joined(separator: ", "))]")
                for file in files {
                    let response = try await client.execute(request(nginx.url(file.path)))
                    #expect(response.headers["Content-Encoding"] == file.coding)
                    #expect(response.body == Self.text, "\(file.path)")
                }
            }
        }
    }
}
