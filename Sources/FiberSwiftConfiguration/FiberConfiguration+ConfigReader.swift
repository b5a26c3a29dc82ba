import Configuration
import Fiber
import FiberRuntime

extension Fiber.Configuration {
    /// A client configuration read from `configReader`: a service's config files,
    /// environment variables or any other swift-configuration provider.
    ///
    /// ```swift
    /// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), defaultsFile])
    /// var configuration = try Fiber.Configuration(configReader: config.scoped(to: "payments"))
    /// configuration.interceptors = [auth, retry]
    /// let fiber = Fiber("https://payments.internal") { $0 = configuration }
    /// ```
    ///
    /// A key no provider has keeps Fiber's default; `Docs/Configuration.md` has the
    /// whole table. Durations are seconds (a number, with a fraction when needed).
    ///
    /// - `timeout` (seconds or `"none"`, default none): a whole request, retries included.
    /// - `defaultHeaders` (array of strings, default none): `"Name: value"` fields
    ///   added to every request that does not set the name itself.
    /// - `propagatesTraceContext` (Boolean, default true): send a W3C `traceparent`.
    /// - `http.…`: the built-in transport, read by `Fiber.HTTPConfiguration(configReader:)`.
    ///   When no `http` key is set, `http` is left alone, so the client shares
    ///   `HTTPTransport.shared`; when any is, the client gets a transport of its own.
    ///
    /// Interceptors, the transport, coders, the logger, `validateStatus`, the trace
    /// exporter and the connection monitor are code, not values: set them on the result.
    ///
    /// - Throws: `FiberConfigurationError` naming the key (relative to `configReader`,
    ///   `"http.tls.verification"`) of a value of the wrong type, a duration that is
    ///   zero, negative or not finite, an unknown word, a malformed header or pin,
    ///   or a combination `HTTPConfiguration.validate()` or OpenSSL refuses.
    public init(configReader: ConfigReader) throws(FiberConfigurationError) {
        let keys = StrictConfigReader(configReader)
        var configuration = Fiber.Configuration()
        if let timeout = try keys.secondsOrNone("timeout") { configuration.timeout = timeout }
        if let entries = try keys.stringArray("defaultHeaders") {
            configuration.defaultHeaders = try ConfigEntries.headers(entries, key: keys.fullKey("defaultHeaders"))
        }
        if let propagates = try keys.bool("propagatesTraceContext") { configuration.propagatesTraceContext = propagates }
        // A presence of its own: only keys under `http` give the client its own transport.
        let httpKeys = StrictConfigReader(configReader.scoped(to: "http"), prefix: "http.")
        let http = try Fiber.HTTPConfiguration.read(httpKeys)
        if httpKeys.presence.found { configuration.http = http }
        self = configuration
    }
}
