import Configuration
import Fiber
import FiberSwiftConfiguration
import FiberTesting
import Foundation
import Testing

/// A value that is present but wrong throws `FiberConfigurationError` naming its
/// full key, whatever the provider: never ignored, never a crash.
@Suite("Bad values", .timeLimit(.minutes(1)))
struct BadValueTests {
    /// Keys and values (`$PKI/` in a string is the test certificates' folder) and the key the error must name.
    struct Case: Sendable, CustomTestStringConvertible {
        let values: [String: ConfigContent]
        let key: String
        var testDescription: String { "\(key) ← \(values.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ", "))" }

        init(_ key: String, _ content: ConfigContent) {
            self.init([key: content], blames: key)
        }

        init(_ values: [String: ConfigContent], blames key: String) {
            self.values = values
            self.key = key
        }
    }

    static let validDigest = "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()

    static let wrongTypes: [Case] = [
        Case("http.maxConnectionsPerHost", .string("sixty")),
        Case("timeout", .bool(true)),
        Case("http.decompression", .string("maybe")),
        Case("defaultHeaders", .string("Accept: text/plain")),
        Case("http.tls.pins", .int(3)),
        Case("http.tls.identity.passphrase", .int(1234)),
        Case("http.tls.maximumVersion", .double(1.3)),
        Case("propagatesTraceContext", .int(1)),
    ]

    static let badDurations: [Case] = [
        Case("http.idleTimeout", .int(0)),
        Case("http.readIdleTimeout", .double(-1)),
        Case("timeout", .double(.infinity)),
        Case("http.socket.connectTimeout", .double(.nan)),
        Case("http.socket.attemptDelay", .double(-0.5)),
        Case("http.requestTimeout", .double(1e300)),
        Case("http.tls.verifiedChainLifetime", .string("never")),
        // `none` only where nil means no limit: the head timeout's nil means "derived".
        Case("http.responseHeadTimeout", .string("none")),
    ]

    static let unknownWords: [Case] = [
        Case("http.tls.verification", .string("insecure")),
        Case("http.tls.minimumVersion", .string("1.1")),
        Case("http.tls.trustRoots", .string("")),
    ]

    static let malformedEntries: [Case] = [
        Case("defaultHeaders", .stringArray(["Accept application/json"])),
        Case("defaultHeaders", .stringArray(["Bad Name: x"])),
        Case("defaultHeaders", .stringArray([": no name"])),
        Case("defaultHeaders", .stringArray(["X-A: a\u{7}b"])),
        Case("http.tls.pins", .stringArray(["example.com"])),
        Case("http.tls.pins", .stringArray(["example.com=sha256/c2hvcnQ="])),
        Case("http.tls.pins", .stringArray(["=\(validDigest)"])),
        Case("http.tls.pins", .stringArray(["example.com=$PKI/no-such-pin.der"])),
        Case("http.tls.pins", .stringArray(["example.com:443=\(validDigest)"])),
    ]

    static let outOfRange: [Case] = [
        Case("http.maxConnectionsPerHost", .int(0)),
        Case("http.maxIdleConnectionsPerHost", .int(-1)),
        Case("http.maxResponseBodySize", .int(-5)),
        Case("http.maxHeaderBytes", .int(0)),
        Case("http.maxInterimResponses", .int(-1)),
        Case("http.redirects.maxRedirects", .int(-1)),
        Case("http.maxDecompressionRatio", .int(0)),
        Case("http.streamHighWatermark", .int(0)),
        Case("http.proxy.url", .string("ftp://user:secret@proxy:21")),
        Case("http.proxy.url", .string("http://proxy:70000")),
        Case("http.socket.readLowWatermark", .int(300_000)),
    ]

    static let tlsCombinations: [Case] = [
        Case(["http.tls.identity.certificateChainFile": .string("$PKI/client-chain.pem")], blames: "http.tls.identity.privateKeyFile"),
        Case(["http.tls.identity.privateKeyFile": .string("$PKI/client.key")], blames: "http.tls.identity.certificateChainFile"),
        Case(["http.tls.identity.passphrase": .string("secret")], blames: "http.tls.identity.passphrase"),
        Case(["http.tls.minimumVersion": .string("1.3"), "http.tls.maximumVersion": .string("1.2")], blames: "http.tls.minimumVersion"),
        Case("http.tls.trustRoots", .string("$PKI/no-such-root.pem")),
        Case("http.tls.trustRoots", .string("$PKI/leaf.key")),
        Case(["http.tls.identity.certificateChainFile": .string("$PKI/client-chain.pem"),
              "http.tls.identity.privateKeyFile": .string("$PKI/client-encrypted.key")], blames: "http.tls.identity.privateKeyFile"),
        Case(["http.tls.identity.certificateChainFile": .string("$PKI/client-chain.pem"),
              "http.tls.identity.privateKeyFile": .string("$PKI/client-encrypted.key"),
              "http.tls.identity.passphrase": .string("wrong")], blames: "http.tls.identity.privateKeyFile"),
        Case(["http.tls.identity.certificateChainFile": .string("$PKI/client-chain.pem"),
              "http.tls.identity.privateKeyFile": .string("$PKI/leaf.key")], blames: "http.tls.identity.privateKeyFile"),
        Case(["http.tls.identity.certificateChainFile": .string("$PKI/no-such-chain.pem"),
              "http.tls.identity.privateKeyFile": .string("$PKI/client.key")], blames: "http.tls.identity.certificateChainFile"),
        Case("http.tls.cipherList", .string("NO-SUCH-CIPHER")),
        Case("http.tls.cipherSuites", .string("NO_SUCH_SUITE")),
    ]

    @Test(arguments: wrongTypes + badDurations + unknownWords + malformedEntries + outOfRange + tlsCombinations)
    func aBadValueInMemoryThrowsNamingItsKey(_ bad: Case) async throws {
        let pki = try await TestCertificates.shared()
        let values = Dictionary(uniqueKeysWithValues: bad.values.map { key, content in
            (AbsoluteConfigKey(ConfigKey(key)), ConfigValue(Self.resolving(content, in: pki), isSecret: false))
        })
        let error = Self.error { () throws(FiberConfigurationError) in
            _ = try Fiber.Configuration(configReader: ConfigReader(provider: InMemoryProvider(values: values)))
        }
        #expect(error?.key == bad.key, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error.map { !$0.reason.isEmpty } == true)
        if bad.key == "http.tls.identity.passphrase" {
            #expect(error.map { !"\($0)".contains("1234") && !"\($0)".contains("secret") } == true)
        }
    }

    /// The same faults as environment variables spell them: a value that does not parse as the key's type.
    static let environmentCases: [(variables: [String: String], key: String)] = [
        (["HTTP_MAX_CONNECTIONS_PER_HOST": "sixty"], "http.maxConnectionsPerHost"),
        (["HTTP_MAX_CONNECTIONS_PER_HOST": "8.5"], "http.maxConnectionsPerHost"),
        (["HTTP_DECOMPRESSION": "maybe"], "http.decompression"),
        (["TIMEOUT": "30s"], "timeout"),
        (["TIMEOUT": "-3"], "timeout"),
        (["HTTP_READ_IDLE_TIMEOUT": "0"], "http.readIdleTimeout"),
        (["HTTP_READ_IDLE_TIMEOUT": "nan"], "http.readIdleTimeout"),
        (["HTTP_READ_IDLE_TIMEOUT": "None"], "http.readIdleTimeout"),
        (["HTTP_SOCKET_KEEP_ALIVE": "forever"], "http.socket.keepAlive"),
        (["HTTP_TLS_VERIFICATION": "off"], "http.tls.verification"),
        (["HTTP_TLS_MINIMUM_VERSION": "TLSv1.2"], "http.tls.minimumVersion"),
        (["HTTP_TLS_PINS": "example.com=sha256/!!"], "http.tls.pins"),
        (["DEFAULT_HEADERS": "Accept"], "defaultHeaders"),
        (["HTTP_MAX_HEADER_BYTES": "-1"], "http.maxHeaderBytes"),
    ]

    @Test func aBadEnvironmentVariableThrowsNamingItsKey() {
        for bad in Self.environmentCases {
            let error = Self.error { () throws(FiberConfigurationError) in
                _ = try Fiber.Configuration(configReader: ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: bad.variables)))
            }
            #expect(error?.key == bad.key, "\(bad.variables): \(error.map { "\($0)" } ?? "no error")")
        }
    }

    @Test func aScopedReaderNamesKeysRelativeToIt() {
        let reader = ConfigReader(provider: InMemoryProvider(values: ["http.tls.verification": "sometimes"]))
        let tls = Self.error { () throws(FiberConfigurationError) in
            _ = try Fiber.TLSConfiguration(configReader: reader.scoped(to: "http.tls"))
        }
        #expect(tls?.key == "verification")
        let http = Self.error { () throws(FiberConfigurationError) in
            _ = try Fiber.HTTPConfiguration(configReader: reader.scoped(to: "http"))
        }
        #expect(http?.key == "tls.verification")
        #expect(http.map { "\($0)" } == "configuration key tls.verification must be \"full\" or \"none\", not \"sometimes\"")
    }

    /// The error `body` throws, nil when it throws none.
    static func error(_ body: () throws(FiberConfigurationError) -> Void) -> FiberConfigurationError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// `content` with `$PKI/` replaced by the certificates' folder.
    static func resolving(_ content: ConfigContent, in pki: TestCertificates) -> ConfigContent {
        let replace = { (text: String) in text.replacingOccurrences(of: "$PKI/", with: pki.folder + "/") }
        switch content {
        case .string(let text): return .string(replace(text))
        case .stringArray(let texts): return .stringArray(texts.map(replace))
        default: return content
        }
    }
}
