import Foundation
import Logging

/// An HTTP/1.1 client on the runtime: keep-alive pools per event loop and
/// origin, redirects, transparent decompression, deadlines and timings.
///
/// Each request runs with its loop as the task-executor preference, so from
/// `execute` to `uv_write` and back it costs no thread hop. Safe to share.
public final class HTTPClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: Configuration
    private let group: EventLoopGroup
    let pools: [ObjectIdentifier: ConnectionPool]
    /// The loops that have a pool, in the group's order (all of them unless the
    /// per-host limit is below the number of loops).
    private let pooledLoops: [EventLoop]
    /// Why `configuration` cannot work, if it cannot: every request throws it.
    private let invalidConfiguration: ConfigurationError?
    /// `configuration.tls` with the ALPN list of each `HTTPVersionPolicy`, made once
    /// so that every request of a policy shares one value (keys compare it by identity first).
    private let tlsByPolicy: [HTTPVersionPolicy: TLSConfiguration]
    /// The configuration's proxy, resolved once (the environment read here).
    private let proxies: ProxySelector

    /// A client whose connections live on `eventLoopGroup`'s loops.
    ///
    /// The configuration is checked here (`Configuration.validate()`); a client
    /// made with one that cannot work opens nothing and throws the
    /// `ConfigurationError` from every request.
    public init(eventLoopGroup: EventLoopGroup = .shared, configuration: Configuration = Configuration()) {
        self.group = eventLoopGroup
        self.configuration = configuration
        var tlsByPolicy: [HTTPVersionPolicy: TLSConfiguration] = [:]
        for (policy, protocols) in [(HTTPVersionPolicy.automatic, ["h2", "http/1.1"]), (.http1Only, ["http/1.1"]), (.http2PriorKnowledge, ["h2"])] {
            var tls = configuration.tls
            tls.applicationProtocols = protocols
            tlsByPolicy[policy] = tls
        }
        self.tlsByPolicy = tlsByPolicy
        do {
            try configuration.validate()
            proxies = try configuration.proxy.selector()
            invalidConfiguration = nil
        } catch {
            invalidConfiguration = error
            proxies = .none
            pools = [:]
            pooledLoops = []
            return
        }
        var pools: [ObjectIdentifier: ConnectionPool] = [:]
        var pooledLoops: [EventLoop] = []
        let limits = configuration.poolLimits(loopCount: eventLoopGroup.loops.count)
        for (loop, limits) in zip(eventLoopGroup.loops, limits) {
            guard let limits else { continue }
            pools[ObjectIdentifier(loop)] = ConnectionPool(
                loop: loop, limits: limits, socketOptions: configuration.socket,
                maxHeaderBytes: configuration.maxHeaderBytes, http2: configuration.http2, resolver: configuration.resolver,
                logger: configuration.logger)
            pooledLoops.append(loop)
        }
        self.pools = pools
        self.pooledLoops = pooledLoops
    }

    /// Sends `request` and reads the whole response body.
    ///
    /// - Throws: `HTTPClientError`: `.invalidHeader` before anything is sent;
    ///   `.transport` (refused, reset, DNS, connect timeout) with the socket's
    ///   error; `.malformedResponse`, `.headersTooLarge`, `.bodyTooLarge`,
    ///   `.decompressionFailed`, `.connectionClosed`, `.readTimeout`, `.responseHeadTimeout`, `.tls` (a refused
    ///   certificate, a pin mismatch, a cut without `close_notify`: `tls` says which),
    ///   `.deadlineExceeded` (also while waiting for a connection), redirect errors, `.cancelled`, `.shutdown`,
    ///   `.proxy` (the configured proxy unreachable, refusing, wanting credentials, malformed or silent: `proxy` says which).
    ///   `HTTPClient.ConfigurationError` before anything else when the client's configuration or `options`
    ///   cannot work.
    public func execute(_ request: HTTPClientRequest, options: RequestOptions = RequestOptions()) async throws -> HTTPClientResponse {
        try await execute(request, options: options, on: nil)
    }

    /// `execute` on `loop` (one of this client's group, else the next in
    /// turn): for a caller that chose the loop already and runs on it.
    ///
    /// - Throws: as `execute(_:options:)`.
    package func execute(_ request: HTTPClientRequest, options: RequestOptions, on preferred: EventLoop?) async throws
        -> HTTPClientResponse {
        try check(options)
        let loop = self.loop(preferring: preferred)
        return try await loop.withPreference {
            // The connection inflated a compressed body as it arrived.
            try await self.run(request, options: options, on: loop) { response, target, redirects, _ in
                HTTPClientResponse(status: response.head.status, reason: response.head.reason, headers: response.head.headers,
                                   body: response.body.array, timing: response.timing, target: target, redirectCount: redirects,
                                   version: response.version, trailers: response.trailers)
            }
        }
    }

    /// `execute(_:options:on:)` with the body collected as `Data`, for a caller that hands
    /// `Data` on: the response's `body` is empty and `data` holds the body, never copied.
    ///
    /// - Throws: as `execute(_:options:)`.
    package func executeCollectingData(_ request: HTTPClientRequest, options: RequestOptions, on preferred: EventLoop?)
        async throws -> (response: HTTPClientResponse, data: Data) {
        try check(options)
        let loop = self.loop(preferring: preferred)
        return try await loop.withPreference {
            try await self.run(request, options: options, on: loop, collectingAs: .data) { response, target, redirects, _ in
                (HTTPClientResponse(status: response.head.status, reason: response.head.reason, headers: response.head.headers,
                                    body: [], timing: response.timing, target: target, redirectCount: redirects,
                                    version: response.version, trailers: response.trailers),
                 response.body.data)
            }
        }
    }

    /// Sends `request` and returns as soon as the response head arrives; the body streams with backpressure.
    ///
    /// - Throws: as `execute`, for everything up to the head; the body's
    ///   iteration throws what happens after.
    public func stream(_ request: HTTPClientRequest, options: RequestOptions = RequestOptions()) async throws -> HTTPClientStreamingResponse {
        try await stream(request, options: options, on: nil)
    }

    /// `stream` on `loop`, as `execute(_:options:on:)`.
    ///
    /// - Throws: as `stream(_:options:)`.
    package func stream(_ request: HTTPClientRequest, options: RequestOptions, on preferred: EventLoop?) async throws
        -> HTTPClientStreamingResponse {
        try check(options)
        let loop = self.loop(preferring: preferred)
        return try await loop.withPreference {
            try await self.run(request, options: options, on: loop, streaming: true) { response, target, redirects, decoder in
                var body = response.stream!
                if let decoder { body = body.inflating(with: decoder) }
                return HTTPClientStreamingResponse(status: response.head.status, reason: response.head.reason,
                                                   headers: response.head.headers, body: body, timing: response.timing,
                                                   target: target, redirectCount: redirects, version: response.version)
            }
        }
    }

    /// Connection counts over every loop and origin.
    public func statistics() async -> ConnectionPoolStatistics {
        var total = ConnectionPoolStatistics()
        for pool in pools.values { total.add(await pool.statistics()) }
        return total
    }

    /// Closes every idle connection and fails waiting requests with `.shutdown`;
    /// requests in flight finish, then their connections close.
    public func shutdown() async {
        for pool in pools.values { await pool.shutdown() }
    }

    /// `preferred` if it is one of this client's loops with a pool, else the group's next
    /// (the caller's own loop when it runs on one), moved onto a loop with a pool.
    private func loop(preferring preferred: EventLoop?) -> EventLoop {
        if let preferred, pools[ObjectIdentifier(preferred)] != nil { return preferred }
        return nextLoop()
    }

    /// The loop the next request should run on: the group's next (the caller's own
    /// when it runs on one), or, when that one has no share of the connections, a
    /// loop that has, chosen by the loop's index so requests still spread.
    ///
    /// A client whose configuration failed validation has no pools; it answers the
    /// group's next, and every request throws before it reaches a loop.
    package func nextLoop() -> EventLoop {
        let loop = group.next()
        guard pooledLoops.count < group.loops.count, !pooledLoops.isEmpty else { return loop }
        if pools[ObjectIdentifier(loop)] != nil { return loop }
        return pooledLoops[loop.index % pooledLoops.count]
    }

    /// Throws the configuration's error, or the options', before the request reaches a loop.
    private func check(_ options: RequestOptions) throws(ConfigurationError) {
        if let invalidConfiguration { throw invalidConfiguration }
        try options.validate()
    }

    // MARK: The exchange loop: redirects, one retry on a stale connection

    private func run<R>(
        _ original: HTTPClientRequest, options: RequestOptions, on loop: EventLoop, streaming: Bool = false,
        collectingAs form: CollectedBody.Form = .bytes, finish: (HTTP1Connection.Response, HTTPTarget, Int, Inflater?) async throws -> R
    ) async throws -> R {
        let start = ContinuousClock.now
        var deadline = (options.timeout ?? configuration.requestTimeout).map { start + $0 }
        if let given = options.deadline, deadline.map({ given < $0 }) ?? true { deadline = given }
        let policy = options.redirects ?? configuration.redirects
        var request = original
        var visited: Set<String> = []  // filled on the first redirect only
        var redirects = 0
        var hopStart = start
        do {
            while true {
                // Cookies are added to each hop's copy only: `request` keeps the caller's fields.
                var response = try await attempt(options.cookies?.addingCookies(to: request) ?? request, options: options,
                                                 on: loop, start: start, deadline: deadline, streaming: streaming, form: form)
                options.cookies?.receive(response.head, from: request.target)
                let location = RedirectPolicy.location(of: response.head)
                if location != nil, visited.isEmpty { visited.insert("\(original.method) \(original.target)") }
                if let next = try policy.next(after: response.head.status, location: location, request: request,
                                              visited: &visited, followed: redirects) {
                    if let body = response.stream { Task { for try await _ in body {} } }  // let the connection finish
                    if let observe = options.redirectObserver {
                        let now = ContinuousClock.now
                        observe(RedirectHop(method: request.method, url: request.target.description,
                                            status: response.head.status, location: next.target.description,
                                            started: hopStart, ended: now))
                        hopStart = now
                    }
                    request = next
                    redirects += 1
                    continue
                }
                // A streamed body is inflated as its consumer reads it. A collected one was, as it
                // arrived, unless it redirects: that one is left as it came until it is not followed
                // (the body of a redirect followed is never read, so a bad one must not fail the request).
                var decoder: Inflater?
                if let limits = decompressionLimits(request, options), streaming || location != nil,
                   !response.head.hasNoBody, let coding = Inflater.coding(of: response.head.headers) {
                    decoder = try Inflater(encoding: coding, limits: limits)
                }
                if !streaming, let inflater = decoder.take() {
                    var inflated = CollectedBody(form)
                    try response.body.withUnsafeBytes { _ = try inflater.inflate($0, into: &inflated) }
                    try inflater.finish()
                    response.body = inflated
                }
                return try await finish(response, request.target, redirects, decoder)
            }
        } catch {
            throw HTTPClientError.wrapping(error, url: request.target.description)
        }
    }

    private func attempt(
        _ request: HTTPClientRequest, options: RequestOptions, on loop: EventLoop, start: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant?, streaming: Bool, form: CollectedBody.Form
    ) async throws -> HTTP1Connection.Response {
        let proxy = try options.proxy.map { try $0.selector().proxy(for: request.target) } ?? proxies.proxy(for: request.target)
        let prepared = try await prepare(request, options: options, forwardingTo: proxy, on: loop)
        let pool = pools[ObjectIdentifier(loop)]!
        let policy = options.httpVersion ?? configuration.httpVersion
        let key = ConnectionPool.Key(scheme: request.target.scheme, host: request.target.host, port: request.target.port,
                                     tls: request.target.isSecure ? tlsByPolicy[policy] : nil,
                                     requiresHTTP2: policy == .http2PriorKnowledge,
                                     socketPath: configuration.unixSocketPath(for: request.target), proxy: proxy)
        let mode: HTTP1Connection.BodyMode = streaming
            ? .stream(lowWatermark: configuration.streamHighWatermark / 4, highWatermark: configuration.streamHighWatermark)
            : .collect(maxBytes: options.maxResponseBodySize ?? configuration.maxResponseBodySize,
                       inflating: decompressionLimits(request, options), form: form)
        let readIdle = options.readIdleTimeout ?? configuration.readIdleTimeout
        let head = Configuration.responseHeadBound(given: options.responseHeadTimeout ?? configuration.responseHeadTimeout,
                                                   readIdle: readIdle)
        let bounds = ExchangeBounds(readIdle: readIdle, responseHead: head, deadline: deadline,
                                    maxInterimResponses: configuration.maxInterimResponses)
        let response = try await exchange(prepared, key: key, mode: mode, bounds: bounds, start: start, on: pool)
        if let proxy, response.head.status == 407, proxy.forwards(scheme: request.target.scheme) {
            // Only a proxy sends 407 (RFC 9110 §15.5.8): the forwarded request's answer is the proxy's refusal.
            if let body = response.stream { Task { for try await _ in body {} } }  // let the connection finish
            throw ProxyFailure(.authenticationRequired, proxy: proxy,
                               destination: ProxyServer.authority(host: request.target.host, port: request.target.port),
                               status: 407, detail: "407 \(response.head.reason)")
        }
        return response
    }

    /// The limits a compressed response body is inflated within, or nil when the client leaves bodies as they come.
    private func decompressionLimits(_ request: HTTPClientRequest, _ options: RequestOptions) -> Inflater.Limits? {
        guard configuration.decompression, request.method != "HEAD" else { return nil }
        return Inflater.Limits(maxSize: options.maxResponseBodySize ?? configuration.maxResponseBodySize,
                               maxRatio: configuration.maxDecompressionRatio)
    }

    /// Leases a connection and runs the exchange on it, retrying once on a new
    /// connection when a reused one turns out dead.
    ///
    /// The task prefers `pool`'s loop (`execute` made sure), so this runs on
    /// the loop thread and reaches the pool and the connection synchronously
    /// (`onLoop`): with a connection idle and the body in memory, a request
    /// suspends once, for its response, and never hops between executors.
    private func exchange(
        _ prepared: PreparedRequest, key: ConnectionPool.Key, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds,
        start: ContinuousClock.Instant, on pool: ConnectionPool
    ) async throws -> HTTP1Connection.Response {
        for attempt in 1...2 {
            let leased = switch pool.onLoop((key, bounds.deadline), { pool, lease in pool.startLease(lease.0, deadline: lease.1) }) {
            case .leased(let leased): leased
            case .waiting(let wait): try await wait.result()
            }
            var timing = leased.setup ?? RequestTiming()
            if leased.setup == nil, let waited = leased.waited, waited > .milliseconds(1) { timing.poolWait = waited }
            do {
                switch leased.connection {
                case .http1(let connection):
                    let exchange = try connection.onLoop((prepared, mode, bounds, start, timing)) { connection, e in
                        try connection.begin(e.0, mode: e.1, bounds: e.2, start: e.3, timing: e.4)
                    }
                    switch prepared.body {
                    case nil, .bytes?, .data?: return try await HTTP1Connection.response(to: exchange, on: connection)
                    case .streamed?: return try await connection.upload(prepared, for: exchange)
                    }
                case .http2(let connection):
                    let stream = try connection.onLoop((prepared, mode, bounds, start, timing)) { connection, e in
                        try connection.begin(e.0, mode: e.1, bounds: e.2, start: e.3, timing: e.4)
                    }
                    switch prepared.body {
                    case nil, .bytes?, .data?: return try await HTTP2Connection.response(to: stream, on: connection)
                    case .streamed?: return try await connection.upload(stream)
                    }
                }
            } catch let error as HTTPClientError where error.mayRetryOnNewConnection && attempt == 1 && !prepared.bodyIsSpent {
                continue
            }
        }
        preconditionFailure("unreachable: the second attempt returns or throws")
    }

    /// The request's head and body as they will be sent. Through a proxy that
    /// forwards it (plain `http` through an HTTP proxy), the head names the whole
    /// URL (absolute form) and carries `Proxy-Authorization`; through a tunnel, or
    /// direct, it is the origin's and never has the proxy's credentials.
    private func prepare(_ request: HTTPClientRequest, options: RequestOptions, forwardingTo proxy: ProxyServer?,
                         on loop: EventLoop) async throws -> PreparedRequest {
        var body: PreparedRequest.Body?
        var length: Int?
        if let given = request.body {
            switch given.source {
            case .bytes(let bytes): body = .bytes(bytes); length = bytes.count
            case .data(let data): body = .data(data); length = data.count
            case .stream, .file, .parts:
                let (chunks, n) = try await given.chunks(on: loop)
                body = .streamed(chunks, length: n)
                length = n
            }
        }
        let acceptEncoding = configuration.decompression && request.method != "HEAD" ? ContentCoding.acceptEncoding : nil
        let head = if let proxy {
            try HTTP1RequestSerializer.check(
                method: request.method,
                requestTarget: proxy.forwards(scheme: request.target.scheme) ? request.target.description : request.target.pathAndQuery,
                host: request.target.hostHeader, headers: proxy.requestHeaders(request.headers, scheme: request.target.scheme),
                bodyLength: length, hasBody: body != nil, acceptEncoding: acceptEncoding)
        } else {
            try HTTP1RequestSerializer.check(method: request.method, requestTarget: request.target.pathAndQuery,
                                             host: request.target.hostHeader, headers: request.headers,
                                             bodyLength: length, hasBody: body != nil, acceptEncoding: acceptEncoding)
        }
        return PreparedRequest(method: request.method, target: request.target, isIdempotent: request.isIdempotent,
                               head: head, bodyLength: length, body: body, source: request.body,
                               uploadProgress: options.uploadProgress,
                               downloadProgress: options.downloadProgress)
    }
}
