import Foundation

/// nginx as an HTTP/2 server for the tests: over TLS (ALPN `h2` and `http/1.1`, the test
/// certificates) or h2c with prior knowledge, with a fixed set of locations.
///
/// | path | response |
/// | --- | --- |
/// | `/hello` | 200, `Hello, world!` (13 bytes, text/plain) |
/// | `/1k`, `/1m` | 200, 1 KiB or 1 MiB of `patternedBytes` (a 1 MiB body outgrows the 64 KiB default windows) |
/// | `/slow` | 200, 64 KiB at 32 KiB/s (`limit_rate`) |
/// | `/trailers` | 200, `Hello, world!`, then the trailer `x-trailer: done` |
/// | `/echo` | the request body back, through `echoUpstream` (an HTTP/1.1 server on 127.0.0.1 that echoes); 501 without one |
/// | `/status/204` | 204 |
/// | `PUT /store/<name>` | stores the body as `www/store/<name>` (WebDAV), for byte-for-byte upload checks |
extension NginxServer {
    /// The body of `/hello`.
    public static let http2HelloBody = "Hello, world!"

    /// The bytes of `/1k` and `/1m`.
    public static func http2File(bytes: Int) -> [UInt8] { patternedBytes(bytes) }

    /// Starts nginx with `listen … http2`, the locations above, and TLS when `certificates` is given.
    ///
    /// - Parameters:
    ///   - certificates: the test PKI; nginx serves `chain.pem` with `leaf.key` (TLS 1.2 and 1.3).
    ///     `nil` for h2c (prior knowledge; nginx 1.22 then answers nothing but HTTP/2 on that port).
    ///   - echoUpstream: the port of an HTTP/1.1 server on 127.0.0.1 that `/echo` is proxied to
    ///     (nginx cannot echo a body by itself).
    ///   - extraServer: more directives for the `server { }` block.
    /// - Throws: `NginxServer.StartError` when nginx does not start.
    public static func startHTTP2(
        certificates: TestCertificates?, echoUpstream: Int? = nil, extraServer: String = ""
    ) async throws -> NginxServer {
        let tls = certificates.map {
            """
            ssl_certificate \($0.path("chain.pem"));
            ssl_certificate_key \($0.path("leaf.key"));
            ssl_protocols TLSv1.2 TLSv1.3;
            """
        } ?? ""
        let echo = echoUpstream.map { "proxy_pass http://127.0.0.1:\($0); proxy_http_version 1.1;" } ?? "return 501;"
        let server = """
            \(tls)
            default_type application/octet-stream;
            location = /hello { default_type text/plain; return 200 "\(http2HelloBody)"; }
            location = /trailers { default_type text/plain; add_trailer x-trailer done; return 200 "\(http2HelloBody)"; }
            location = /slow { limit_rate 32k; }
            location = /echo { \(echo) }
            location = /status/204 { return 204; }
            location /store/ { dav_methods PUT; create_full_put_path on; }
            \(extraServer)
            """
        return try await start(server: server, tls: certificates != nil, http2: true) { root in
            try Data(http2File(bytes: 1024)).write(to: URL(fileURLWithPath: root + "/1k"))
            try Data(http2File(bytes: 1 << 20)).write(to: URL(fileURLWithPath: root + "/1m"))
            try Data(http2File(bytes: 64 << 10)).write(to: URL(fileURLWithPath: root + "/slow"))
        }
    }
}
