import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The proxy set through the `Fiber` API (`Configuration.http.proxy`), and its
/// failures as `FiberError`s.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)"))
struct FiberProxyInteropTests {
    @Test func theEnvironmentsProxyCarriesAFibersRequests() async throws {
        try await withProxy({ try await .tinyproxy() }) { proxy in
            try await withOrigin { origin, _ in
                let fiber = Fiber(origin.url("")) {
                    $0.http.proxy = .environment(variables: ["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "localhost"])
                }
                let response = try await fiber.get("/hello")
                #expect(response.statusCode == 200)
                #expect(origin.lastRequest?.headers.first(name: "Via")?.contains("fiber-test-proxy") == true)
                // NO_PROXY sends localhost direct: the origin sees no proxy's Via.
                let direct = try await fiber.get("http://localhost:\(origin.port)/hello")
                #expect(direct.statusCode == 200)
                #expect(origin.lastRequest?.headers.contains(name: "Via") == false)
                #expect(origin.requestCount == 2)
            }
        }
    }

    @Test func aProxyRefusalIsANetworkErrorThatNamesTheProxyAndNotTheCredentials() async throws {
        try await withProxy({ try await .tinyproxy("BasicAuth alice s3cret") }) { proxy in
            try await withOrigin(tls: true) { origin, pki in
                let fiber = Fiber(origin.url("")) {
                    $0.http.tls = pki.clientTrustingRoot
                    $0.http.proxy = .url("http://alice:letmein@127.0.0.1:\(proxy.port)")
                }
                do {
                    _ = try await fiber.get("/hello")
                    Issue.record("expected a proxy failure")
                } catch let error as FiberError {
                    let failure = try #require(error.proxyFailure, "\(error)")
                    #expect(failure.reason == .authenticationRequired && failure.status == 401, "tinyproxy's answer to wrong credentials")
                    let text = "\(error) \(error.localizedDescription)"
                    #expect(text.contains("127.0.0.1:\(proxy.port)") && !text.contains("letmein") && !text.contains("alice"), "\(text)")
                }
            }
        }
    }
}
