import Configuration
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Every key the module reads, each set to a value other than its default, as an
/// in-memory provider holds it and as an environment variable spells it.
struct EveryKey {
    /// One key: its in-memory value, its environment variable and that variable's text.
    struct Entry {
        let key: String
        let value: ConfigValue
        let variable: String
        let text: String
    }

    let entries: [Entry]
    let pki: TestCertificates

    /// A 32-byte digest no certificate has.
    static let digest = Data(repeating: 7, count: 32).base64EncodedString()

    init(_ pki: TestCertificates) {
        self.pki = pki
        func entry(_ key: String, _ content: ConfigContent, _ variable: String, _ text: String, secret: Bool = false) -> Entry {
            Entry(key: key, value: ConfigValue(content, isSecret: secret), variable: variable, text: text)
        }
        let pins = ["127.0.0.1=sha256/\(Self.digest)", "localhost=\(pki.path("intermediate.der"))"]
        entries = [
            entry("timeout", .double(12.5), "TIMEOUT", "12.5"),
            entry("defaultHeaders", .stringArray(["Accept: application/json", "X-Service: checkout"]),
                  "DEFAULT_HEADERS", "Accept: application/json,X-Service: checkout"),
            entry("propagatesTraceContext", .bool(false), "PROPAGATES_TRACE_CONTEXT", "false"),
            entry("http.maxConnectionsPerHost", .int(8), "HTTP_MAX_CONNECTIONS_PER_HOST", "8"),
            entry("http.maxIdleConnectionsPerHost", .int(2), "HTTP_MAX_IDLE_CONNECTIONS_PER_HOST", "2"),
            // A whole number for a duration, as an in-memory provider keeps it apart from a double.
            entry("http.idleTimeout", .int(90), "HTTP_IDLE_TIMEOUT", "90"),
            entry("http.maxConnectionLifetime", .double(600.5), "HTTP_MAX_CONNECTION_LIFETIME", "600.5"),
            entry("http.requestTimeout", .double(20), "HTTP_REQUEST_TIMEOUT", "20"),
            entry("http.readIdleTimeout", .string("none"), "HTTP_READ_IDLE_TIMEOUT", "none"),
            entry("http.responseHeadTimeout", .double(45), "HTTP_RESPONSE_HEAD_TIMEOUT", "45"),
            entry("http.maxInterimResponses", .int(3), "HTTP_MAX_INTERIM_RESPONSES", "3"),
            entry("http.maxResponseBodySize", .int(1_048_576), "HTTP_MAX_RESPONSE_BODY_SIZE", "1048576"),
            entry("http.maxHeaderBytes", .int(16_384), "HTTP_MAX_HEADER_BYTES", "16384"),
            entry("http.decompression", .bool(false), "HTTP_DECOMPRESSION", "false"),
            entry("http.maxDecompressionRatio", .int(50), "HTTP_MAX_DECOMPRESSION_RATIO", "50"),
            entry("http.streamHighWatermark", .int(131_072), "HTTP_STREAM_HIGH_WATERMARK", "131072"),
            entry("http.redirects.maxRedirects", .int(3), "HTTP_REDIRECTS_MAX_REDIRECTS", "3"),
            entry("http.redirects.allowHTTPSToHTTP", .bool(true), "HTTP_REDIRECTS_ALLOW_HTTPSTO_HTTP", "true"),
            entry("http.socket.connectTimeout", .double(2.5), "HTTP_SOCKET_CONNECT_TIMEOUT", "2.5"),
            entry("http.socket.attemptDelay", .double(0.125), "HTTP_SOCKET_ATTEMPT_DELAY", "0.125"),
            entry("http.socket.noDelay", .bool(false), "HTTP_SOCKET_NO_DELAY", "false"),
            entry("http.socket.keepAlive", .int(30), "HTTP_SOCKET_KEEP_ALIVE", "30"),
            entry("http.socket.readHighWatermark", .int(524_288), "HTTP_SOCKET_READ_HIGH_WATERMARK", "524288"),
            entry("http.socket.readLowWatermark", .int(131_072), "HTTP_SOCKET_READ_LOW_WATERMARK", "131072"),
            entry("http.tls.trustRoots", .string(pki.path("root.pem")), "HTTP_TLS_TRUST_ROOTS", pki.path("root.pem")),
            entry("http.tls.verification", .string("none"), "HTTP_TLS_VERIFICATION", "none"),
            entry("http.tls.minimumVersion", .string("1.3"), "HTTP_TLS_MINIMUM_VERSION", "1.3"),
            entry("http.tls.maximumVersion", .string("1.3"), "HTTP_TLS_MAXIMUM_VERSION", "1.3"),
            entry("http.tls.cipherList", .string("ECDHE+AESGCM"), "HTTP_TLS_CIPHER_LIST", "ECDHE+AESGCM"),
            entry("http.tls.cipherSuites", .string("TLS_AES_256_GCM_SHA384"), "HTTP_TLS_CIPHER_SUITES", "TLS_AES_256_GCM_SHA384"),
            entry("http.tls.pins", .stringArray(pins), "HTTP_TLS_PINS", pins.joined(separator: ",")),
            entry("http.tls.identity.certificateChainFile", .string(pki.path("client-chain.pem")),
                  "HTTP_TLS_IDENTITY_CERTIFICATE_CHAIN_FILE", pki.path("client-chain.pem")),
            entry("http.tls.identity.privateKeyFile", .string(pki.path("client-encrypted.key")),
                  "HTTP_TLS_IDENTITY_PRIVATE_KEY_FILE", pki.path("client-encrypted.key")),
            entry("http.tls.identity.passphrase", .string(TestCertificates.passphrase),
                  "HTTP_TLS_IDENTITY_PASSPHRASE", TestCertificates.passphrase, secret: true),
            entry("http.tls.sessionResumption", .bool(false), "HTTP_TLS_SESSION_RESUMPTION", "false"),
            entry("http.tls.verifiedChainLifetime", .string("none"), "HTTP_TLS_VERIFIED_CHAIN_LIFETIME", "none"),
            entry("http.tls.releasesIdleBuffers", .bool(true), "HTTP_TLS_RELEASES_IDLE_BUFFERS", "true"),
            entry("http.proxy.url", .string("http://user:secret@127.0.0.1:3128"), "HTTP_PROXY_URL",
                  "http://user:secret@127.0.0.1:3128", secret: true),
            entry("http.proxy.noProxy", .string("localhost,.internal"), "HTTP_PROXY_NO_PROXY", "localhost,.internal"),
            entry("http.httpVersion", .string("http1Only"), "HTTP_HTTP_VERSION", "http1Only"),
            entry("http.http2.maxConcurrentStreams", .int(64), "HTTP_HTTP2_MAX_CONCURRENT_STREAMS", "64"),
            entry("http.http2.streamWindowSize", .int(262_144), "HTTP_HTTP2_STREAM_WINDOW_SIZE", "262144"),
            entry("http.http2.connectionWindowSize", .int(4_194_304), "HTTP_HTTP2_CONNECTION_WINDOW_SIZE", "4194304"),
            entry("http.http2.pingInterval", .string("none"), "HTTP_HTTP2_PING_INTERVAL", "none"),
            entry("http.http2.pingTimeout", .double(2.5), "HTTP_HTTP2_PING_TIMEOUT", "2.5"),
            entry("http.http2.maxControlFramesPer10Seconds", .int(100), "HTTP_HTTP2_MAX_CONTROL_FRAMES_PER10SECONDS", "100"),
            entry("http.http2.maxContinuationFrames", .int(4), "HTTP_HTTP2_MAX_CONTINUATION_FRAMES", "4"),
        ]
    }

    /// A reader of every key from an in-memory provider.
    var inMemory: ConfigReader {
        ConfigReader(provider: InMemoryProvider(values: Dictionary(uniqueKeysWithValues: entries.map {
            (AbsoluteConfigKey(ConfigKey($0.key)), $0.value)
        })))
    }

    /// A reader of every key from environment variables.
    var environment: ConfigReader {
        ConfigReader(provider: EnvironmentVariablesProvider(
            environmentVariables: Dictionary(uniqueKeysWithValues: entries.map { ($0.variable, $0.text) })))
    }

    /// Checks that `configuration` holds every value above.
    func expectApplied(to configuration: Fiber.Configuration) throws {
        #expect(configuration.timeout == 12.5)
        #expect(configuration.defaultHeaders.map { "\($0.name)=\($0.value)" } == ["Accept=application/json", "X-Service=checkout"])
        #expect(configuration.propagatesTraceContext == false)
        try expectApplied(to: configuration.http)
    }

    /// Checks that `http` holds every `http.` value above.
    func expectApplied(to http: Fiber.HTTPConfiguration) throws {
        #expect(http.maxConnectionsPerHost == 8)
        #expect(http.maxIdleConnectionsPerHost == 2)
        #expect(http.idleTimeout == .seconds(90))
        #expect(http.maxConnectionLifetime == .seconds(600.5))
        #expect(http.requestTimeout == .seconds(20))
        #expect(http.readIdleTimeout == nil)
        #expect(http.responseHeadTimeout == .seconds(45))
        #expect(http.maxInterimResponses == 3)
        #expect(http.maxResponseBodySize == 1_048_576)
        #expect(http.maxHeaderBytes == 16_384)
        #expect(http.decompression == false)
        #expect(http.maxDecompressionRatio == 50)
        #expect(http.streamHighWatermark == 131_072)
        #expect(http.redirects == Fiber.RedirectPolicy(maxRedirects: 3, allowHTTPSToHTTP: true))
        var socket = Fiber.SocketOptions()
        socket.connectTimeout = .seconds(2.5)
        socket.attemptDelay = .seconds(0.125)
        socket.noDelay = false
        socket.keepAlive = .seconds(30)
        socket.readHighWatermark = 524_288
        socket.readLowWatermark = 131_072
        #expect(http.socket == socket)
        #expect(http.proxy == .url("http://user:secret@127.0.0.1:3128", noProxy: "localhost,.internal"))
        #expect(http.httpVersion == .http1Only)
        #expect(http.http2.maxConcurrentStreams == 64 && http.http2.streamWindowSize == 262_144)
        #expect(http.http2.connectionWindowSize == 4_194_304 && http.http2.pingInterval == nil)
        #expect(http.http2.pingTimeout == .milliseconds(2500) && http.http2.maxControlFramesPer10Seconds == 100)
        #expect(http.http2.maxContinuationFrames == 4)
        try expectApplied(to: http.tls)
    }

    /// Checks that `tls` holds every `http.tls.` value above.
    func expectApplied(to tls: Fiber.TLSConfiguration) throws {
        var expected = Fiber.TLSConfiguration()
        expected.trustRoots = .file(pki.path("root.pem"))
        expected.verification = .insecureNoVerification
        expected.minimumVersion = .tls13
        expected.maximumVersion = .tls13
        expected.cipherList = "ECDHE+AESGCM"
        expected.cipherSuites = "TLS_AES_256_GCM_SHA384"
        expected.pins = ["127.0.0.1": [.publicKeySHA256(Array(repeating: 7, count: 32))],
                         "localhost": [try .certificate(file: pki.path("intermediate.der"))]]
        expected.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                  privateKey: .file(pki.path("client-encrypted.key")),
                                  passphrase: TestCertificates.passphrase)
        expected.sessionResumption = false
        expected.verifiedChainLifetime = nil
        expected.releasesIdleBuffers = true
        #expect(tls == expected)
    }
}
