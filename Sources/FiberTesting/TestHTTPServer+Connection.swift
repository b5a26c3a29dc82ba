import FiberRuntime

/// One accepted connection of a `TestHTTPServer`: reads requests with the
/// runtime's `HTTP1Parser` (request mode), has the router answer them, writes
/// the answers in order, and ends the connection when HTTP, the response or a
/// fault says so. Runs in one task that prefers the connection's loop.
struct HTTPConnection {
    private let server: TestHTTPServer
    private let stream: SocketStream
    private let number: Int
    private let parser: HTTP1Parser
    /// Bytes read and not parsed yet (the start of a pipelined request).
    private var unparsed: [UInt8] = []
    private var served = 0

    init(server: TestHTTPServer, stream: SocketStream, number: Int) {
        self.server = server
        self.stream = stream
        self.number = number
        self.parser = HTTP1Parser(mode: .request, maxHeaderBytes: server.configuration.maxRequestHeaderBytes)
    }

    /// Serves requests until the connection ends, then closes the socket.
    mutating func run() async {
        var ending = ResponseWriter.Ending.keepAlive
        while ending == .keepAlive {
            do {
                ending = try await serveOne()
            } catch {
                ending = .abort
            }
        }
        switch ending {
        case .keepAlive, .abort:
            await stream.close()
        case .close:
            await closeGracefully()
        case .reset:
            await stream.reset()
        case .silent:
            await drain()
            await stream.close()
        }
    }

    // MARK: One exchange

    private mutating func serveOne() async throws -> ResponseWriter.Ending {
        switch try await readRequest() {
        case .endOfStream:
            return .abort
        case .idle:
            return .close
        case .malformed(let status, let message):
            server.noteBadRequest()
            let context = ResponseWriter.Context(method: "GET", version: .http1_1, keepAlive: false)
            return try await ResponseWriter.send(.text(message + "\n", status: status), on: stream, for: context)
        case .rejected(let incoming, let response):
            _ = record(incoming)
            let context = ResponseWriter.Context(method: incoming.head.method, version: incoming.version, keepAlive: false)
            return try await ResponseWriter.send(response, on: stream, for: context)
        case .complete(let incoming):
            let request = record(incoming)
            let response: TestResponse
            do {
                response = try await server.handler(for: request)(request)
            } catch {
                if Task.isCancelled { return .abort }
                response = .text("handler failed: \(error)\n", status: 500)
            }
            let keepAlive = incoming.head.keepAlive && !incoming.upgrade && !server.isShutDown
                && served < (server.configuration.maxRequestsPerConnection ?? .max)
            let context = ResponseWriter.Context(method: request.method, version: request.version, keepAlive: keepAlive)
            return try await ResponseWriter.send(response, on: stream, for: context)
        }
    }

    private mutating func record(_ incoming: Incoming) -> TestRequest {
        served += 1
        let head = incoming.head
        return server.record { [number, served] sequence in
            TestRequest(
                method: head.method, target: head.target, headers: head.headers, body: incoming.body,
                trailers: incoming.trailers, version: incoming.version, keepAlive: head.keepAlive,
                connectionNumber: number, numberOnConnection: served, sequenceNumber: sequence, receivedAt: .now)
        }
    }

    // MARK: Reading a request

    private struct Incoming {
        var head: HTTP1Head
        var body: [UInt8]
        var trailers: HTTPHeaders
        /// The client asked to switch protocols; the server answers in HTTP/1.1 and closes.
        var upgrade: Bool
        var version: TestRequest.Version { TestRequest.Version(major: head.version.major, minor: head.version.minor) }
    }

    private enum ReadResult {
        case complete(Incoming)
        /// `Expect: 100-continue` answered with a final response, body unread.
        case rejected(Incoming, TestResponse)
        /// The parser refused the bytes: answer `status` with `message` and close.
        case malformed(status: Int, message: String)
        /// The client closed (or the socket failed) before a whole request arrived.
        case endOfStream
        /// No request started within the idle timeout.
        case idle
    }

    private mutating func readRequest() async throws -> ReadResult {
        let parser = self.parser
        let maxBody = server.configuration.maxRequestBodyBytes
        var head: HTTP1Head?
        var body: [UInt8] = []
        var trailers = HTTPHeaders()
        var ended = false
        var upgrade = false
        var answeredExpectation = false
        /// Whether bytes of this request have arrived (the idle timeout only runs before).
        var started = false
        while !ended {
            if unparsed.isEmpty {
                let chunk: [UInt8]?
                if !started, let idleTimeout = server.configuration.idleTimeout {
                    do {
                        chunk = try await stream.loop.withTimeout(idleTimeout) { [stream] in try await stream.read() }
                    } catch is DeadlineExceeded {
                        return .idle
                    }
                } else {
                    chunk = try await stream.read()
                }
                guard let chunk else { return .endOfStream }
                unparsed = chunk
            }
            started = true
            let outcome: HTTP1Parser.Outcome
            do {
                outcome = try unparsed.withUnsafeBytes { raw in
                    try parser.feed(raw) { event in
                        switch event {
                        case .head(let parsed): head = parsed
                        case .body(let range): body += raw[range]
                        case .end(let parsedTrailers):
                            trailers = parsedTrailers
                            ended = true
                        }
                    }
                }
            } catch let error as HTTPClientError {
                if error.kind == .headersTooLarge {
                    return .malformed(status: 431, message: "request header fields larger than \(parser.maxHeaderBytes) bytes")
                }
                return .malformed(status: 400, message: "bad request: \(error.detail ?? error.kind.description)")
            }
            switch outcome {
            case .needMore:
                unparsed = []
            case .messageEnded(let consumed):
                unparsed.removeFirst(consumed)
            case .upgraded(let consumed):
                unparsed.removeFirst(consumed)
                upgrade = true
                ended = true
            }
            if body.count > maxBody {
                return .malformed(status: 413, message: "request body larger than \(maxBody) bytes")
            }
            if let head, !ended, !answeredExpectation, head.version == (1, 1),
               head.headers.containsToken("100-continue", in: "Expect") {
                answeredExpectation = true
                switch server.configuration.expectContinue {
                case .sendContinue:
                    try await stream.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                case .ignore:
                    break
                case .reject(let response):
                    return .rejected(Incoming(head: head, body: [], trailers: HTTPHeaders(), upgrade: false), response)
                }
            }
        }
        guard let head else { return .malformed(status: 400, message: "bad request: no request line") }
        // After a CONNECT or an upgrade request llhttp expects the new protocol; the connection ends with the answer.
        if head.method == "CONNECT" || (head.headers.contains(name: "Upgrade") && head.headers.containsToken("upgrade", in: "Connection")) {
            upgrade = true
        }
        return .complete(Incoming(head: head, body: body, trailers: trailers, upgrade: upgrade))
    }

    // MARK: Ending the connection

    /// Half-closes (the client reads to the end of the response), reads and
    /// drops what the client still sends until it closes or the linger
    /// timeout passes, then closes. Closing at once with unread input would
    /// make the kernel send a reset, which can destroy the response in flight.
    private func closeGracefully() async {
        do {
            try await stream.shutdownOutput()
        } catch {
            await stream.close()
            return
        }
        let stream = self.stream
        let timer = try? stream.loop.scheduleTask(in: server.configuration.lingerTimeout) {
            stream.assumeIsolated { $0.close() }
        }
        await drain()
        timer?.cancel()
        await stream.close()
    }

    /// Reads and drops input until the client closes, the socket fails or the task is cancelled.
    private func drain() async {
        while (try? await stream.read()) != nil {}
    }
}
