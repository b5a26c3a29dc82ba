import Configuration
import Fiber
import FiberRuntime

extension Fiber.HTTPConfiguration {
    /// The built-in transport's settings read from `configReader`'s keys; a key no
    /// provider has keeps its default. Each key is the path of the property it sets.
    /// `Fiber.Configuration(configReader:)` reads these under `http`;
    /// `Docs/Configuration.md` has the whole table. Durations are seconds (a
    /// number, with a fraction when needed); sizes are bytes.
    ///
    /// - `maxConnectionsPerHost` (integer, default 64), `maxIdleConnectionsPerHost`
    ///   (integer, default: as `maxConnectionsPerHost`): the client's pool per origin.
    /// - `idleTimeout` (seconds, default 60): an idle connection is closed after it.
    /// - `maxConnectionLifetime` (seconds or `"none"`, default none).
    /// - `requestTimeout` (seconds or `"none"`, default none): the whole request, redirects included.
    /// - `readIdleTimeout` (seconds or `"none"`, default 30): fail when no byte arrives for this long.
    /// - `responseHeadTimeout` (seconds, default: the read-idle timeout, at least 30).
    /// - `maxInterimResponses` (integer, default 10).
    /// - `maxResponseBodySize` (bytes, default 104857600), `maxHeaderBytes` (bytes, default 65536).
    /// - `decompression` (Boolean, default true), `maxDecompressionRatio` (integer, default 1000).
    /// - `streamHighWatermark` (bytes, default 262144).
    /// - `redirects.maxRedirects` (integer, default 10; 0 follows none),
    ///   `redirects.allowHTTPSToHTTP` (Boolean, default false).
    /// - `socket.connectTimeout` (seconds, default 10), `socket.attemptDelay`
    ///   (seconds, zero allowed, default 0.25), `socket.noDelay` (Boolean, default
    ///   true), `socket.keepAlive` (seconds or `"none"`, default none),
    ///   `socket.readHighWatermark`, `socket.readLowWatermark` (bytes, defaults 262144, 65536).
    /// - `tls.…`: read by `Fiber.TLSConfiguration(configReader:)`.
    /// - `httpVersion` (`automatic`, `http1Only` or `http2PriorKnowledge`, default `automatic`).
    /// - `http2.maxConcurrentStreams` (integer, default 1000), `http2.streamWindowSize`,
    ///   `http2.connectionWindowSize` (bytes, defaults 1048576 and 16777216),
    ///   `http2.pingInterval` (seconds or `"none"`, default 30), `http2.pingTimeout` (seconds,
    ///   default 10), `http2.maxControlFramesPer10Seconds` (integer, default 1000),
    ///   `http2.maxContinuationFrames` (integer, default 8).
    /// - `proxy.url` (a secret string, default `none`): `none`, `environment` (the
    ///   `HTTP_PROXY` family, `Docs/Proxies.md`), or a proxy URL (`http://user:password@host:port`,
    ///   `socks5://…`); `proxy.noProxy` (string, default empty): hosts a URL's proxy leaves
    ///   alone, in `NO_PROXY`'s syntax.
    ///
    /// The result then passes `validate()`, so a value out of range or a pair
    /// that cannot work together throws now rather than on every request.
    ///
    /// - Throws: `FiberConfigurationError` naming the key (relative to `configReader`)
    ///   of a value of the wrong type, a duration that is zero, negative or not
    ///   finite, a value `validate()` refuses, or a TLS setting that cannot work.
    public init(configReader: ConfigReader) throws(FiberConfigurationError) {
        self = try Self.read(StrictConfigReader(configReader))
    }

    /// The settings under `keys`, validated.
    static func read(_ keys: StrictConfigReader) throws(FiberConfigurationError) -> Fiber.HTTPConfiguration {
        var http = Fiber.HTTPConfiguration()
        try http.readPool(keys)
        try http.readLimits(keys)
        let redirects = keys.scoped(to: "redirects")
        if let count = try redirects.int("maxRedirects") { http.redirects.maxRedirects = count }
        if let allows = try redirects.bool("allowHTTPSToHTTP") { http.redirects.allowHTTPSToHTTP = allows }
        http.socket = try Fiber.SocketOptions.read(keys.scoped(to: "socket"))
        http.tls = try Fiber.TLSConfiguration.read(keys.scoped(to: "tls"))
        try http.readProxy(keys.scoped(to: "proxy"))
        try http.readHTTP2(keys)
        do {
            try http.validate()
        } catch {
            // The settings are spelled as the keys are.
            throw FiberConfigurationError(key: keys.fullKey(error.setting), reason: error.reason)
        }
        return http
    }

    private mutating func readPool(_ keys: StrictConfigReader) throws(FiberConfigurationError) {
        if let count = try keys.int("maxConnectionsPerHost") { maxConnectionsPerHost = count }
        if let count = try keys.int("maxIdleConnectionsPerHost") { maxIdleConnectionsPerHost = count }
        if let timeout = try keys.duration("idleTimeout") { idleTimeout = timeout }
        if let lifetime = try keys.durationOrNone("maxConnectionLifetime") { maxConnectionLifetime = lifetime }
    }

    /// `httpVersion` and the `http2.…` keys.
    private mutating func readHTTP2(_ keys: StrictConfigReader) throws(FiberConfigurationError) {
        let policies: KeyValuePairs<String, HTTPVersionPolicy> = [
            "automatic": .automatic, "http1Only": .http1Only, "http2PriorKnowledge": .http2PriorKnowledge,
        ]
        if let policy = try keys.word("httpVersion", policies) { httpVersion = policy }
        let h2 = keys.scoped(to: "http2")
        if let count = try h2.int("maxConcurrentStreams") { http2.maxConcurrentStreams = count }
        if let size = try h2.int("streamWindowSize") { http2.streamWindowSize = size }
        if let size = try h2.int("connectionWindowSize") { http2.connectionWindowSize = size }
        if let interval = try h2.durationOrNone("pingInterval") { http2.pingInterval = interval }
        if let timeout = try h2.duration("pingTimeout") { http2.pingTimeout = timeout }
        if let count = try h2.int("maxControlFramesPer10Seconds") { http2.maxControlFramesPer10Seconds = count }
        if let count = try h2.int("maxContinuationFrames") { http2.maxContinuationFrames = count }
    }

    /// `proxy.url` and `proxy.noProxy`, checked here so that a bad URL blames its own key.
    private mutating func readProxy(_ keys: StrictConfigReader) throws(FiberConfigurationError) {
        let noProxy = try keys.string("noProxy") ?? ""
        guard let text = try keys.string("url", isSecret: true) else { return }
        switch text {
        case "none": proxy = .none
        case "environment": proxy = .environment
        default: proxy = .url(text, noProxy: noProxy)
        }
        do {
            try proxy.validate()
        } catch {
            // A variable of the environment names itself ("proxy (HTTPS_PROXY)").
            throw keys.error("url", error.setting == "proxy" ? error.reason : "\(error.setting) \(error.reason)")
        }
    }

    private mutating func readLimits(_ keys: StrictConfigReader) throws(FiberConfigurationError) {
        if let timeout = try keys.durationOrNone("requestTimeout") { requestTimeout = timeout }
        if let timeout = try keys.durationOrNone("readIdleTimeout") { readIdleTimeout = timeout }
        if let timeout = try keys.duration("responseHeadTimeout") { responseHeadTimeout = timeout }
        if let count = try keys.int("maxInterimResponses") { maxInterimResponses = count }
        if let size = try keys.int("maxResponseBodySize") { maxResponseBodySize = size }
        if let size = try keys.int("maxHeaderBytes") { maxHeaderBytes = size }
        if let decompresses = try keys.bool("decompression") { decompression = decompresses }
        if let ratio = try keys.int("maxDecompressionRatio") { maxDecompressionRatio = ratio }
        if let size = try keys.int("streamHighWatermark") { streamHighWatermark = size }
    }
}

extension Fiber.SocketOptions {
    /// The options under `keys` (validated with the rest by `HTTPConfiguration.validate()`).
    static func read(_ keys: StrictConfigReader) throws(FiberConfigurationError) -> Fiber.SocketOptions {
        var socket = Fiber.SocketOptions()
        if let timeout = try keys.duration("connectTimeout") { socket.connectTimeout = timeout }
        if let delay = try keys.duration("attemptDelay", zeroAllowed: true) { socket.attemptDelay = delay }
        if let noDelay = try keys.bool("noDelay") { socket.noDelay = noDelay }
        if let idle = try keys.durationOrNone("keepAlive") { socket.keepAlive = idle }
        if let size = try keys.int("readHighWatermark") { socket.readHighWatermark = size }
        if let size = try keys.int("readLowWatermark") { socket.readLowWatermark = size }
        return socket
    }
}
