import FiberRuntime

/// Puts a `TestResponse` on the wire as the answer to one request: waits its
/// delay, commits its fault or writes its head and body with the framing the
/// body and the client's version call for, and says how the connection ends.
enum ResponseWriter {
    /// How a connection goes on after a response.
    enum Ending: Equatable {
        /// Read the next request.
        case keepAlive
        /// Half-close, linger, close.
        case close
        /// Close with a TCP reset.
        case reset
        /// Send nothing more; wait for the client to close.
        case silent
        /// Close at once (the client went away or the response failed midway).
        case abort
    }

    /// The facts about the request that shape the response.
    struct Context {
        var method: String
        var version: TestRequest.Version
        /// False when the connection must close after this response.
        var keepAlive: Bool

        var isHead: Bool { method == "HEAD" }
        var allowsChunked: Bool { version.major > 1 || (version.major == 1 && version.minor >= 1) }
    }

    /// Sends `response` and returns how the connection goes on.
    ///
    /// - Throws: `TransportError` when the client went away; what a stream's
    ///   producer throws (the connection is then dropped mid-body);
    ///   `CancellationError` or `EventLoopError` from a delay during shutdown.
    static func send(_ response: TestResponse, on stream: SocketStream, for context: Context) async throws -> Ending {
        let delivery = response.delivery
        if delivery.delay > .zero { try await stream.loop.sleep(for: delivery.delay) }
        let wire = ResponseWire(stream: stream, delivery: delivery)
        let ending: Ending
        do {
            switch response.action {
            case .silent:
                return .silent
            case .closeBeforeHead:
                return .close
            case .reset:
                return .reset
            case .raw(let bytes, let thenClose):
                try await wire.writeBody(bytes)
                ending = thenClose || !context.keepAlive ? .close : .keepAlive
            case .respond:
                ending = try await sendMessage(response, wire: wire, context: context)
            }
        } catch let cut as ResponseCut {
            return await cutEnding(reset: cut.reset, on: stream)
        }
        if let cut = delivery.cut { return await cutEnding(reset: cut.reset, on: stream) }
        return ending
    }

    /// How long a reset waits after the last byte of a cut response. With no
    /// pause the bytes and the RST reach the client in one poll event, and
    /// libuv then reports a clean end of stream instead of `ECONNRESET` (see
    /// Docs/TestServer.md); a reset after a pause is what a crashing server
    /// looks like anyway.
    static let resetPause: Duration = .milliseconds(10)

    private static func cutEnding(reset: Bool, on stream: SocketStream) async -> Ending {
        guard reset else { return .close }
        try? await stream.loop.sleep(for: resetPause)
        return .reset
    }

    private enum Plan {
        case none
        case bytes([UInt8])
        case stream(TestBodyProducer, trailers: HTTPHeaders, chunked: Bool)
    }

    private static func sendMessage(_ response: TestResponse, wire: ResponseWire, context: Context) async throws -> Ending {
        let status = response.status
        let bodyless = (100..<200).contains(status) || status == 204 || status == 304
        var headers = response.headers
        var close = !context.keepAlive || headers.containsToken("close", in: "Connection")
        let framed = headers.contains(name: "Content-Length") || headers.contains(name: "Transfer-Encoding")
        let plan: Plan
        switch response.body {
        case .bytes(let bytes):
            if !bodyless, !framed { headers.append(name: "Content-Length", value: String(bytes.count)) }
            plan = bodyless ? .none : .bytes(bytes)
        case .chunked(let chunks, let trailers):
            if bodyless {
                plan = .none
            } else if context.allowsChunked {
                if !framed { headers.append(name: "Transfer-Encoding", value: "chunked") }
                plan = .bytes(ChunkedCoding.body(chunks, trailers: trailers))
            } else {
                close = true
                plan = .bytes(chunks.flatMap { $0 })
            }
        case .stream(let producer, let trailers):
            if bodyless {
                plan = .none
            } else {
                if context.allowsChunked {
                    if !framed { headers.append(name: "Transfer-Encoding", value: "chunked") }
                } else {
                    close = true
                }
                plan = .stream(producer, trailers: trailers, chunked: context.allowsChunked)
            }
        case .closeDelimited(let bytes):
            close = true
            plan = bodyless ? .none : .bytes(bytes)
        }
        if close {
            if !headers.containsToken("close", in: "Connection") { headers.append(name: "Connection", value: "close") }
        } else if !context.allowsChunked, !headers.contains(name: "Connection") {
            headers.append(name: "Connection", value: "keep-alive")
        }

        let head = encodeHead(status: status, reason: response.reason, headers: headers)
        switch context.isHead ? .none : plan {
        case .none:
            try await wire.writeHead(head)
        case .bytes(let body):
            try await wire.write(head: head, body: body)
        case .stream(let producer, let trailers, let chunked):
            try await wire.writeHead(head)
            try await producer(TestBodyWriter(wire: wire, chunked: chunked))
            if chunked { try await wire.writeBody(ChunkedCoding.end(trailers: trailers)) }
        }
        return close ? .close : .keepAlive
    }

    /// `HTTP/1.1 <status> <reason>`, the fields, and the blank line.
    static func encodeHead(status: Int, reason: String?, headers: HTTPHeaders) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason ?? HTTPReasonPhrase.phrase(for: status))\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}
