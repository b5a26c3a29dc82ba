import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import InMemoryTracing
import Instrumentation
import Testing
import Tracing

extension FinishedInMemorySpan {
    func string(_ key: String) -> String? {
        if case .string(let value)? = attributes[key]?.toSpanAttribute() { value } else { nil }
    }

    func int(_ key: String) -> Int64? {
        switch attributes[key]?.toSpanAttribute() {
        case .int64(let value)?: value
        case .int32(let value)?: Int64(value)
        default: nil
        }
    }
}

/// The spans of a request under an installed tracer (swift-distributed-tracing's
/// `InMemoryTracer`), over the live transport: OpenTelemetry's HTTP client
/// conventions, one client span per attempt under the request's span.
@Suite struct OpenTelemetrySpanTests {
    /// The request's span and its attempts' spans, found by the request's unique path.
    private func spans(path: String) throws -> (request: FinishedInMemorySpan, attempts: [FinishedInMemorySpan]) {
        let all = SharedTracer.tracer.finishedSpans.filter { $0.string("url.full")?.contains(path) == true }
        let request = try #require(all.first { $0.kind == .internal })
        return (request, all.filter { $0.kind == .client }.sorted { ($0.int("http.request.resend_count") ?? 0) < ($1.int("http.request.resend_count") ?? 0) })
    }

    @Test func eachRedirectFollowedIsAClientSpanUnderTheAttempt() async throws {
        _ = SharedTracer.tracer
        try await withLiveServer { server, transport in
            let path = "/otel-redirect-\(UUID().uuidString)"
            server.route(path + "/a", respond: .redirect(to: path + "/b", status: 301))
            server.route(path + "/b", respond: .redirect(to: path + "/c", status: 307))
            server.route(path + "/c", respond: .ok("landed"))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let response = try await fiber.get(path + "/a")
            #expect(response.text == "landed")
            let all = SharedTracer.tracer.finishedSpans.filter { $0.string("url.full")?.contains(path) == true }
            let request = try #require(all.first { $0.kind == .internal })
            let clients = all.filter { $0.kind == .client }
            // The attempt (the request's child) covers the chain and records its end; the hops are its children.
            let attempt = try #require(clients.first { $0.parentSpanID == request.spanID })
            #expect(attempt.int("http.response.status_code") == 200)
            let hops = clients.filter { $0.parentSpanID == attempt.spanID }.sorted { $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch }
            #expect(hops.count == 2)
            #expect(hops.map { $0.string("url.full") } == [server.baseURL + path + "/a", server.baseURL + path + "/b"])
            #expect(hops.map { $0.int("http.response.status_code") } == [301, 307])
            #expect(hops.allSatisfy { $0.operationName == "GET" && $0.traceID == request.traceID && $0.status?.code != .error })
            if case .stringArray(let location)? = hops.first?.attributes["http.response.header.location"]?.toSpanAttribute() {
                #expect(location == [path + "/b"] || location == [server.baseURL + path + "/b"])
            } else {
                Issue.record("the hop has no Location attribute")
            }
            #expect(hops.allSatisfy { $0.startInstant.nanosecondsSinceEpoch <= $0.endInstant.nanosecondsSinceEpoch })
        }
    }

    @Test func aRequestIsOneSpanWithAClientSpanPerAttempt() async throws {
        _ = SharedTracer.tracer
        try await withLiveServer { server, transport in
            let path = "/otel-\(UUID().uuidString)"
            server.route(path) { request in
                .ok("\(request.header("traceparent") ?? "-") \(request.header(InMemoryTracer.traceIDKey) ?? "-") \(request.header(InMemoryTracer.spanIDKey) ?? "-")")
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let response = try await fiber.get(path + "?q=1")
            let (request, attempts) = try spans(path: path)
            let attempt = try #require(attempts.first)
            #expect(attempts.count == 1)
            #expect(request.operationName == "GET" && attempt.operationName == "GET" && attempt.kind == .client)
            #expect(attempt.parentSpanID == request.spanID && attempt.traceID == request.traceID)
            let port = Int64(try #require(URL(string: server.baseURL)?.port))
            #expect(attempt.string("http.request.method") == "GET")
            #expect(attempt.string("url.full") == server.baseURL + path + "?q=1")
            #expect(attempt.string("url.scheme") == "http" && attempt.string("server.address") == "127.0.0.1")
            #expect(attempt.int("server.port") == port && attempt.int("http.response.status_code") == 200)
            #expect(attempt.attributes["error.type"] == nil && attempt.status?.code != .error)
            #expect(attempt.attributes["http.request.resend_count"] == nil)
            // The instrument's context of the attempt went out, and no traceparent of Fiber's.
            let sent = response.text.split(separator: " ").map(String.init)
            #expect(sent == ["-", attempt.traceID, attempt.spanID])
        }
    }

    @Test func errorStatusesAndFailuresAreErrors() async throws {
        _ = SharedTracer.tracer
        try await withLiveServer { server, transport in
            let path = "/missing-\(UUID().uuidString)"
            server.route(path, respond: .status(404))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            #expect(try await fiber.get(path).statusCode == 404)
            let (request, attempts) = try spans(path: path)
            for span in [request] + attempts {
                #expect(span.int("http.response.status_code") == 404 && span.string("error.type") == "404")
                #expect(span.status?.code == .error)
            }

            let refusing = RefusingPort()
            let refused = "/refused-\(UUID().uuidString)"
            let nobody = Fiber("http://127.0.0.1:\(refusing.port)") { $0.transport = transport }
            await #expect(throws: FiberError.self) { try await nobody.get(refused) }
            withExtendedLifetime(refusing) {}
            let (failed, failedAttempts) = try spans(path: refused)
            let attempt = try #require(failedAttempts.first)
            #expect(attempt.string("error.type") == "FiberError" && failed.string("error.type") == "FiberError")
            #expect(attempt.status?.code == .error && attempt.errors.count == 1)
            #expect(attempt.attributes["http.response.status_code"] == nil)
        }
    }

    @Test func retriesAreAttemptsOfOneRequest() async throws {
        _ = SharedTracer.tracer
        try await withLiveServer { server, transport in
            let path = "/flaky-\(UUID().uuidString)"
            let calls = Locked(0)
            server.route(path) { _ in
                calls.withLock { $0 += 1; return $0 } == 1 ? .status(503) : .ok("fine")
            }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 2, baseDelay: 0)]
            }
            #expect(try await fiber.get(path).text == "fine")
            let (request, attempts) = try spans(path: path)
            #expect(attempts.count == 2)
            #expect(attempts.map { $0.int("http.response.status_code") } == [503, 200])
            #expect(attempts.map { $0.int("http.request.resend_count") } == [nil, 1])
            #expect(attempts.allSatisfy { $0.parentSpanID == request.spanID })
            #expect(attempts.first?.string("error.type") == "503" && request.int("http.response.status_code") == 200)
        }
    }

    /// (Over the mock transport: the runtime refuses URLs with user info before sending.)
    @Test func credentialsNeverReachTheSpan() async throws {
        _ = SharedTracer.tracer
        let (fiber, mock) = mockFiber()
        mock.stubAll(.ok())
        let path = "/private-\(UUID().uuidString)"
        _ = try await fiber.send(FiberRequest(url: "https://alice:secret@api.example.com:8443\(path)?page=2"))
        let (request, attempts) = try spans(path: path)
        #expect(attempts.count == 1)
        for span in [request] + attempts {
            #expect(span.string("url.full") == "https://api.example.com:8443\(path)?page=2")
            #expect(span.string("server.address") == "api.example.com" && span.int("server.port") == 8443)
        }
    }

    /// A request made in a traced task (a server's handler, say) continues its
    /// trace: its span is a child of the task's, and `traceID` stays the tracer's.
    @Test func theTasksTraceIsContinued() async throws {
        _ = SharedTracer.tracer
        try await withLiveServer { server, transport in
            let path = "/child-\(UUID().uuidString)"
            server.route(path) { request in .ok(request.header(InMemoryTracer.traceIDKey) ?? "-") }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let (parent, response) = try await withSpan("handler", ofKind: .server) { span in
                (span.context.inMemorySpanContext, try await fiber.get(path))
            }
            let (request, attempts) = try spans(path: path)
            #expect(request.traceID == parent?.traceID && request.parentSpanID == parent?.spanID)
            #expect(attempts.first?.traceID == parent?.traceID && response.text == parent?.traceID)
        }
    }
}
