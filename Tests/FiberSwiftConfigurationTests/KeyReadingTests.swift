import Configuration
@testable import Fiber
import FiberRuntime
import FiberSwiftConfiguration
import FiberTesting
import Foundation
import Testing

/// Every key, from an in-memory provider and from environment variables; the
/// defaults of the keys that are absent; each part read alone through a scoped reader.
@Suite("Keys read from a ConfigReader", .timeLimit(.minutes(1)))
struct KeyReadingTests {
    @Test func everyKeyFromAnInMemoryProvider() async throws {
        let every = EveryKey(try await TestCertificates.shared())
        try every.expectApplied(to: try Fiber.Configuration(configReader: every.inMemory))
    }

    @Test func everyKeyFromEnvironmentVariables() async throws {
        let every = EveryKey(try await TestCertificates.shared())
        try every.expectApplied(to: try Fiber.Configuration(configReader: every.environment))
    }

    @Test func eachPartReadAloneThroughAScopedReader() async throws {
        let every = EveryKey(try await TestCertificates.shared())
        for reader in [every.inMemory, every.environment] {
            try every.expectApplied(to: try Fiber.HTTPConfiguration(configReader: reader.scoped(to: "http")))
            try every.expectApplied(to: try Fiber.TLSConfiguration(configReader: reader.scoped(to: "http.tls")))
        }
    }

    @Test func absentKeysKeepFibersDefaultsAndTheSharedTransport() throws {
        let empty = ConfigReader(provider: InMemoryProvider(values: [:]))
        let configuration = try Fiber.Configuration(configReader: empty)
        #expect(configuration.timeout == nil)
        #expect(configuration.defaultHeaders.isEmpty)
        #expect(configuration.propagatesTraceContext == true)
        #expect(configuration.setsHTTP == false)
        let fiber = Fiber("http://127.0.0.1:1") { $0 = configuration }
        #expect((fiber.transport as? HTTPTransport)?.client === HTTPTransport.shared.client)

        let http = try Fiber.HTTPConfiguration(configReader: empty)
        let defaults = Fiber.HTTPConfiguration()
        #expect(http.maxConnectionsPerHost == defaults.maxConnectionsPerHost)
        #expect(http.maxIdleConnectionsPerHost == defaults.maxIdleConnectionsPerHost)
        #expect(http.idleTimeout == defaults.idleTimeout)
        #expect(http.maxConnectionLifetime == defaults.maxConnectionLifetime)
        #expect(http.requestTimeout == defaults.requestTimeout)
        #expect(http.readIdleTimeout == defaults.readIdleTimeout)
        #expect(http.responseHeadTimeout == defaults.responseHeadTimeout)
        #expect(http.maxInterimResponses == defaults.maxInterimResponses)
        #expect(http.maxResponseBodySize == defaults.maxResponseBodySize)
        #expect(http.maxHeaderBytes == defaults.maxHeaderBytes)
        #expect(http.decompression == defaults.decompression)
        #expect(http.maxDecompressionRatio == defaults.maxDecompressionRatio)
        #expect(http.streamHighWatermark == defaults.streamHighWatermark)
        #expect(http.redirects == defaults.redirects)
        #expect(http.socket == defaults.socket)
        #expect(http.tls == defaults.tls)
        #expect(try Fiber.TLSConfiguration(configReader: empty) == Fiber.TLSConfiguration())
    }

    @Test func oneHTTPKeyGivesTheClientItsOwnTransportAndLeavesTheRestAtDefaults() async throws {
        let reader = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: ["HTTP_READ_IDLE_TIMEOUT": "0.5"]))
        let configuration = try Fiber.Configuration(configReader: reader)
        #expect(configuration.http.readIdleTimeout == .seconds(0.5))
        #expect(configuration.http.maxConnectionsPerHost == Fiber.HTTPConfiguration().maxConnectionsPerHost)
        #expect(configuration.http.tls == Fiber.TLSConfiguration())
        let fiber = Fiber("http://127.0.0.1:1") { $0 = configuration }
        let transport = try #require(fiber.transport as? HTTPTransport)
        #expect(transport.client !== HTTPTransport.shared.client)
        #expect(transport.client.configuration.readIdleTimeout == .seconds(0.5))
        await transport.shutdown()
    }

    @Test func aLaterProviderFillsWhatAnEarlierOneLeavesOut() throws {
        let environment = EnvironmentVariablesProvider(environmentVariables: ["HTTP_MAX_CONNECTIONS_PER_HOST": "4"])
        let file = InMemoryProvider(values: ["http.maxConnectionsPerHost": 16, "http.idleTimeout": 5])
        let configuration = try Fiber.Configuration(configReader: ConfigReader(providers: [environment, file]))
        #expect(configuration.http.maxConnectionsPerHost == 4)
        #expect(configuration.http.idleTimeout == .seconds(5))
    }

    @Test func defaultHeadersFillNamesARequestDoesNotSet() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/echo", respond: .ok("x"))
        let reader = ConfigReader(provider: InMemoryProvider(values: [
            "defaultHeaders": .init(.stringArray(["X-Team: payments", "Accept:  text/plain "]), isSecret: false),
        ]))
        let configuration = try Fiber.Configuration(configReader: reader)
        let fiber = Fiber(server.baseURL) { $0 = configuration }
        _ = try await fiber.send(FiberRequest(url: server.url("/echo")).header("Accept", "application/json"))
        let request = try #require(server.lastRequest)
        #expect(request.headers.first(name: "X-Team") == "payments")
        #expect(request.headers.values(name: "Accept") == ["application/json"])
        await server.shutdown()
    }

    @Test func thePassphraseIsReadAsASecret() async throws {
        let pki = try await TestCertificates.shared()
        let reporter = CollectingReporter()
        let values: [AbsoluteConfigKey: ConfigValue] = [
            "http.tls.identity.certificateChainFile": .init(.string(pki.path("client-chain.pem")), isSecret: false),
            "http.tls.identity.privateKeyFile": .init(.string(pki.path("client-encrypted.key")), isSecret: false),
            // Not marked secret by the provider: the reader marks it.
            "http.tls.identity.passphrase": .init(.string(TestCertificates.passphrase), isSecret: false),
        ]
        let reader = ConfigReader(provider: InMemoryProvider(values: values), accessReporter: reporter)
        let configuration = try Fiber.Configuration(configReader: reader)
        #expect(configuration.http.tls.identity?.passphrase == TestCertificates.passphrase)
        let passphraseReads = reporter.events.withLock { events in
            events.filter { $0.metadata.key == AbsoluteConfigKey(["http", "tls", "identity", "passphrase"]) }
        }
        #expect(!passphraseReads.isEmpty)
        for event in passphraseReads {
            let value = try event.result.get()
            #expect(value?.isSecret == true, "\(event)")
        }
    }
}

/// Keeps every access event.
final class CollectingReporter: AccessReporter, Sendable {
    let events = Locked<[AccessEvent]>([])

    func report(_ event: AccessEvent) {
        events.withLock { $0.append(event) }
    }
}
