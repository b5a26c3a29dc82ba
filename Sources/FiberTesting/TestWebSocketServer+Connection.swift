import FiberRuntime
import FiberWebSocket

extension TestWebSocketServer {
    /// One server-side connection: the upgrade, then the behaviour.
    struct Connection {
        let server: TestWebSocketServer
        let stream: SocketStream

        func run() async {
            do {
                guard let (head, leftover) = try await readRequest() else { return }
                server.record(head)
                guard let negotiated = try await answer(head) else { return }
                var reader = FrameReader(stream: stream, sink: server.frameSink, pending: leftover)
                switch server.behavior {
                case .echo: try await echo(&reader, deflate: negotiated)
                case .script(let steps): try await play(steps, &reader)
                }
            } catch {
                // The client left or broke the protocol; the connection just ends.
            }
        }

        private func readRequest() async throws -> (HTTP1Head, [UInt8])? {
            let parser = HTTP1Parser(mode: .request)
            var head: HTTP1Head?
            while let chunk = try await stream.read() {
                let outcome = try chunk.withUnsafeBytes { buffer in
                    try parser.feed(buffer) { if case .head(let h) = $0 { head = h } }
                }
                switch outcome {
                case .needMore: continue
                case .messageEnded(let consumed), .upgraded(let consumed):
                    guard let head else { return nil }
                    return (head, Array(chunk[consumed...]))
                }
            }
            return nil
        }

        /// Writes the 101 (or the refusal); returns the deflate parameters if negotiated, nil if refused.
        private func answer(_ head: HTTP1Head) async throws -> PerMessageDeflate?? {
            let h = server.handshake
            if let refuse = h.refuse {
                let body = Array(refuse.body.utf8)
                try await stream.write(Array("HTTP/1.1 \(refuse.status) Refused\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
                return nil
            }
            let key = head.headers["Sec-WebSocket-Key"] ?? ""
            var out = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            out += "Sec-WebSocket-Accept: \(h.acceptOverride ?? WebSocketHandshake.acceptValue(for: key))\r\n"
            if let subprotocol = h.subprotocol { out += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
            var deflate: PerMessageDeflate?
            if let ext = h.extensionsOverride {
                out += "Sec-WebSocket-Extensions: \(ext)\r\n"
            } else if h.deflate, let offer = head.headers["Sec-WebSocket-Extensions"], offer.contains("permessage-deflate") {
                let params = PerMessageDeflate(clientNoContextTakeover: offer.contains("client_no_context_takeover"),
                                               serverNoContextTakeover: offer.contains("server_no_context_takeover"))
                var answer = "permessage-deflate"
                if params.clientNoContextTakeover { answer += "; client_no_context_takeover" }
                if params.serverNoContextTakeover { answer += "; server_no_context_takeover" }
                out += "Sec-WebSocket-Extensions: \(answer)\r\n"
                deflate = params
            }
            out += "\r\n"
            try await stream.write(Array(out.utf8) + h.trailingBytes)
            return .some(deflate)
        }

        private func echo(_ reader: inout FrameReader, deflate: PerMessageDeflate?) async throws {
            // The server inflates what the client compressed, and the reverse.
            let inbound = deflate.map { PerMessageDeflate(serverNoContextTakeover: $0.clientNoContextTakeover) }
            var assembler = WebSocketMessageAssembler(maxMessageSize: 64 * 1024 * 1024, deflate: inbound)
            let compressor = deflate.map { DeflateCompressor(windowBits: 15, noContextTakeover: $0.serverNoContextTakeover) }
            while let frame = try await reader.next() {
                switch try assembler.consume(frame) {
                case .message(let message)?:
                    var opcode = WebSocketOpcode.binary
                    var payload: [UInt8]
                    switch message {
                    case .text(let text): opcode = .text; payload = Array(text.utf8)
                    case .binary(let bytes): payload = bytes
                    }
                    let rsv1 = compressor != nil
                    if let compressor { payload = try compressor.compress(payload) }
                    try await stream.write(WebSocketFrameEncoder.encode(WebSocketFrame(rsv1: rsv1, opcode: opcode, payload: payload), maskKey: nil))
                case .ping(let payload)?:
                    try await stream.write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .pong, payload: payload), maskKey: nil))
                case .close(let code, _)?:
                    let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []
                    try await stream.write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: payload), maskKey: nil))
                    return
                case .pong?, nil:
                    continue
                }
            }
        }

        private func play(_ steps: [Step], _ reader: inout FrameReader) async throws {
            for step in steps {
                switch step {
                case .send(let bytes):
                    try await stream.write(bytes)
                case .sendFrame(let frame):
                    try await stream.write(WebSocketFrameEncoder.encode(frame, maskKey: nil))
                case .receiveFrame:
                    guard try await reader.next() != nil else { return }
                case .expectClose:
                    while let frame = try await reader.next() {
                        if frame.opcode == .close { break }
                    }
                case .closeConnection:
                    await stream.close()
                    return
                case .reset:
                    await stream.reset()
                    return
                case .beSilent:
                    while try await stream.read() != nil {}
                    return
                }
            }
            while try await reader.next() != nil {}
        }
    }

    /// Reads masked client frames and records each one.
    struct FrameReader {
        let stream: SocketStream
        let sink: AsyncStream<WebSocketFrame>.Continuation
        var decoder = WebSocketFrameDecoder(role: .server, maxFrameSize: 64 * 1024 * 1024)

        init(stream: SocketStream, sink: AsyncStream<WebSocketFrame>.Continuation, pending: [UInt8]) {
            self.stream = stream
            self.sink = sink
            decoder.append(pending)
        }

        mutating func next() async throws -> WebSocketFrame? {
            while true {
                if let frame = try decoder.next() {
                    sink.yield(frame)
                    return frame
                }
                guard let chunk = try await stream.read() else { return nil }
                decoder.append(chunk)
            }
        }
    }
}
