import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// HTTPS against a real nginx with the test certificates: keep-alive,
/// a large download, resumption across connections, verification and pins.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct TLSInteropTests {
    static func server(_ certificates: TestCertificates, chain: String = "chain.pem") -> String {
        """
        ssl_certificate \(certificates.path(chain));
        ssl_certificate_key \(certificates.path("leaf.key"));
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:fiber:1m;
        location = /conn { default_type text/plain; return 200 "$connection $connection_requests $ssl_protocol $ssl_session_reused"; }
        location = /close { keepalive_timeout 0; default_type text/plain; return 200 "$ssl_session_reused"; }
        """
    }

    /// One loop, so that every request of a test meets the same pool.
    static let group = EventLoopGroup(loopCount: 1, name: "tls-interop")

    static func client(_ certificates: TestCertificates, _ configure: (inout TLSConfiguration) -> Void = { _ in }) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.tls = certificates.clientTrustingRoot
        configure(&configuration.tls)
        return HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    @Test func keepAliveOverTLS13() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true) { nginx in
            let client = Self.client(certificates)
            let first = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
            let second = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
            let a = first.text.split(separator: " "), b = second.text.split(separator: " ")
            #expect(a.count == 4 && b.count == 4)
            #expect(a.first == b.first, "one connection: \(first.text) / \(second.text)")
            #expect(b[1] == "2")
            #expect(a[2] == "TLSv1.3")
            #expect(second.timing.reusedConnection)
            await client.shutdown()
        }
    }

    @Test func reconnectsResumeTheSession() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true) { nginx in
            for version in [TLSConfiguration.Version.tls13, .tls12] {
                let client = Self.client(certificates) { $0.maximumVersion = version }
                var reused: [String] = []
                for _ in 1...3 {
                    reused.append(try await client.execute(HTTPClientRequest(url: nginx.url("/close"))).text)
                }
                #expect(reused == [".", "r", "r"], "nginx's $ssl_session_reused over \(version)")
                await client.shutdown()
            }
        }
    }

    @Test func downloadOf8MiBOverTLSIsExact() async throws {
        let certificates = try await TestCertificates.shared()
        let bytes = randomBytes(count: 8 * 1024 * 1024)
        try await withNginx(server: Self.server(certificates), tls: true, prepare: { root in
            try write(bytes, to: root + "/big.bin")
        }) { nginx in
            let client = Self.client(certificates)
            let response = try await client.execute(HTTPClientRequest(url: nginx.url("/big.bin")))
            #expect(response.body.count == bytes.count)
            #expect(adler32(response.body) == adler32(bytes))
            let streamed = try await client.stream(HTTPClientRequest(url: nginx.url("/big.bin")))
            var checksum = RunningAdler32()
            var total = 0
            for try await chunk in streamed.body { checksum.update(chunk); total += chunk.count }
            #expect(total == bytes.count)
            #expect(checksum.value == adler32(bytes))
            await client.shutdown()
        }
    }

    @Test func missingIntermediateAndPinMismatchAreRefused() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates, chain: "leaf-only.pem"), tls: true) { nginx in
            let client = Self.client(certificates)
            do {
                _ = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
                Issue.record("a chain without its intermediate must be refused")
            } catch let error as HTTPClientError {
                #expect(error.tls?.kind == .issuerNotFound, "\(error)")
            }
            await client.shutdown()
        }
        try await withNginx(server: Self.server(certificates), tls: true) { nginx in
            let client = Self.client(certificates) {
                $0.pins = ["127.0.0.1": [try! CertificatePin.certificate(file: certificates.path("root.der"))]]
            }
            do {
                _ = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
                Issue.record("a pin mismatch must be refused")
            } catch let error as HTTPClientError {
                #expect(error.tls?.kind == .pinMismatch, "\(error)")
            }
            await client.shutdown()
        }
    }
}
