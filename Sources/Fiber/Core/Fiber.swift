import FiberRuntime
import Foundation

/// An HTTP client: a base URL, a pipeline of interceptors and a transport.
///
/// ```swift
/// let fiber = Fiber("https://api.example.com") {
///     $0.interceptors = [auth, retry, logging, cache]
/// }
/// let users: [User] = try await fiber.get("/users", query: ["page": "1"]).decode()
/// ```
///
/// A client is immutable and safe to share between tasks. Its pipeline is
/// folded once, when it is made; a request runs it in the caller's task.
public final class Fiber: Sendable {
    /// The URL that paths are appended to.
    public let baseURL: String
    /// What the client was made with.
    public let configuration: Configuration
    let transport: any FiberTransport
    private let pipeline: InlineNext
    private let streamingPipeline: InlineNext
    /// Whether a request binds its trace ID to `TraceContext` for the code it runs (see `init`).
    private let bindsTaskTrace: Bool
    /// Whether a swift-distributed-tracing instrument was installed when the client was made
    /// (see `hasInstrument()`): requests then run in its spans and carry its context.
    private let isInstrumented: Bool
    /// The end of every pipeline, for those a request makes of its own interceptors.
    private let end: TransportStep
    /// The requests in flight, for `shutdown(gracePeriod:)`.
    let drain = RequestDrain()

    /// A client for `baseURL`, configured by `configure`.
    public init(_ baseURL: String, configure: (inout Configuration) -> Void = { _ in }) {
        var configuration = Configuration()
        configure(&configuration)
        self.baseURL = baseURL
        self.configuration = configuration
        let transport = configuration.transport
            ?? (configuration.setsHTTP ? HTTPTransport(configuration: configuration.http) : HTTPTransport.shared)
        self.transport = transport
        // Interceptors, a logger and a transport of the user's may read `TraceContext`
        // while a request runs; the built-in transport alone reads nothing from the task.
        bindsTaskTrace = !configuration.interceptors.isEmpty || configuration.logger != nil || !(transport is HTTPTransport)
        let instrumented = Self.hasInstrument()
        isInstrumented = instrumented
        let last = TransportStep(transport: transport, configuration: configuration, instrumented: instrumented)
        end = last
        pipeline = InlineNext.chain(configuration.interceptors) { try await last.send($0) }
        streamingPipeline = InlineNext.chain(configuration.interceptors) { try await last.stream($0) }
    }

    /// A client for `baseURL` with `interceptors` (first outermost) over `transport`
    /// (nil: `HTTPTransport.shared`).
    public convenience init(baseURL: URL, interceptors: [any Interceptor] = [], transport: (any FiberTransport)? = nil) {
        self.init(baseURL.absoluteString) {
            $0.interceptors = interceptors
            $0.transport = transport
        }
    }

    /// Sends `request` through the pipeline and returns the response, whatever its status
    /// (unless the configuration's `validateStatus` rejects it).
    ///
    /// - Throws: `FiberError`: `.invalidURL` and `.encodingError` before
    ///   anything is sent; `.networkError`, `.timeout`, `.cancelled` from the
    ///   transport; `.httpError` when `validateStatus` is configured and rejects
    ///   the status; `.networkError` with an `OfflineError` at once when the
    ///   configuration's `connectionMonitor` reports the machine offline;
    ///   `.networkError` with a `ShutdownError` at once after `shutdown(gracePeriod:)`.
    ///   Errors of interceptors pass through as they were thrown.
    @discardableResult
    public func send(_ request: FiberRequest) async throws -> FiberResponse {
        try await perform(request, through: request.overrides == nil ? pipeline : pipeline(for: request, streaming: false))
    }

    /// Sends `request` through the pipeline and returns as soon as the response
    /// head is in; the body streams (`FiberStreamingResponse.body`).
    ///
    /// Interceptors see a response whose `data` is empty and `isStreamed` true:
    /// the built-ins leave such bodies alone (Cache does not store them,
    /// Encryption does not decrypt them, Logging does not log them).
    ///
    /// - Throws: as `send(_:)`, up to the response head.
    public func stream(_ request: FiberRequest) async throws -> FiberStreamingResponse {
        FiberStreamingResponse(try await perform(request, through: request.overrides == nil
            ? streamingPipeline : pipeline(for: request, streaming: true)))
    }

    /// The pipeline of a request that brings interceptors of its own, or asks for
    /// retries of a client without a `RetryInterceptor` (which it then gets, outermost).
    private func pipeline(for request: FiberRequest, streaming: Bool) -> InlineNext {
        let shared = streaming ? streamingPipeline : pipeline
        guard let overrides = request.overrides else { return shared }
        var interceptors = configuration.interceptors
        var changed = false
        switch overrides.interceptors {
        case .replacing(let own)?:
            interceptors = own
            changed = true
        case .adding(let more)?:
            interceptors += more
            changed = !more.isEmpty
        case nil:
            break
        }
        if let retry = overrides.retry, retry.maxRetries > 0, !interceptors.contains(where: { $0 is RetryInterceptor }) {
            interceptors.insert(RetryInterceptor(), at: 0)
            changed = true
        }
        guard changed else { return shared }
        let end = self.end
        return streaming ? InlineNext.chain(interceptors) { try await end.stream($0) }
                         : InlineNext.chain(interceptors) { try await end.send($0) }
    }

    private func perform(_ request: FiberRequest, through pipeline: InlineNext) async throws -> FiberResponse {
        defer { request.uploadProgress?.requestEnded() }
        if let error = request.buildError { throw error }
        if let offline = offlineFailure(for: request) { throw offline }
        let slot = try drain.enter(url: request.location.text)
        defer { drain.leave(slot) }
        var request = request
        for field in configuration.defaultHeaders where !request.headers.contains(name: field.name) {
            request = request.header(field.name, field.value)
        }
        if let seconds = request.timeout ?? configuration.timeout {
            request.deadlineReading = MonotonicTime.now() + .seconds(clamping: seconds)
        }
        let inherited = TraceContext.traceID
        request.traceID = inherited.isEmpty ? configuration.defaults.traceIDGenerator() : inherited
        // The executor is chosen here, once: the transport is told which loop it is.
        let executor = transport.executorPreference()
        let loop = executor as? EventLoop
        request.eventLoop = loop
        let prepared = request
        guard isInstrumented else { return try await bound(prepared, inherited: inherited, on: loop, executor, pipeline) }
        return try await inRequestSpan(prepared) { request in
            try await self.bound(request, inherited: inherited, on: loop, executor, pipeline)
        }
    }

    /// Runs the pipeline with the request's trace ID bound to `TraceContext` when
    /// someone may read it there and it is not the caller's already.
    private func bound(_ request: FiberRequest, inherited: String, on loop: EventLoop?, _ executor: (any TaskExecutor)?,
                       _ pipeline: InlineNext) async throws -> FiberResponse {
        guard bindsTaskTrace, request.traceID != inherited else {
            return try await exportingSpan(request) { try await self.run(request, on: loop, executor, pipeline) }
        }
        return try await TraceContext.$traceID.withValue(request.traceID) {
            try await self.exportingSpan(request) { try await self.run(request, on: loop, executor, pipeline) }
        }
    }

    private func run(_ request: FiberRequest, on loop: EventLoop?, _ executor: (any TaskExecutor)?,
                     _ pipeline: InlineNext) async throws -> FiberResponse {
        // On the transport's loop, isolated to it (`LoopIsolation`), so the
        // chain's steps run there without a hop; a task that already
        // prefers the loop adds no second preference.
        if let loop {
            return try await loop.withPreference { try await self.run(on: loop.isolation, request, through: pipeline) }
        }
        guard let executor else { return try await self.run(request, through: pipeline) }
        return try await withTaskExecutorPreference(executor) { try await self.run(request, through: pipeline) }
    }

    private func run(on isolation: isolated LoopIsolation, _ request: FiberRequest, through pipeline: InlineNext)
        async throws -> FiberResponse {
        try await run(request, through: pipeline)
    }

    nonisolated(nonsending) private func run(_ request: FiberRequest, through pipeline: InlineNext) async throws
        -> FiberResponse {
        let logger = configuration.logger
        logger?.log(.debug, "→ \(request.httpMethod) \(request.location.text)", metadata: ["trace": request.traceID])
        var response: FiberResponse
        do {
            response = try await pipeline(request)
        } catch {
            // Debug, not error: the caller receives the error and decides whether it is one.
            logger?.log(.debug, "✗ \(request.httpMethod) \(request.location.text): \(error)",
                        metadata: ["trace": request.traceID])
            throw FiberError.surfacing(error)
        }
        response.decoder = request.overrides?.decoder ?? configuration.decoder
        response.statusRule = configuration.validateStatus
        if let rule = configuration.validateStatus, !rule(response.statusCode) {
            logger?.log(.debug, "✗ \(response.statusCode) \(request.location.text): status rejected",
                        metadata: ["trace": request.traceID])
            throw FiberError.httpError(statusCode: response.statusCode, data: response.data, response: response)
        }
        logger?.log(.debug, "← \(response.statusCode) \(request.location.text)", metadata: ["trace": request.traceID])
        return response
    }
}
