import FiberRuntime

extension WebSocketConnection {
    /// What a successful opening handshake leaves behind.
    struct Opened: Sendable {
        var transport: WebSocketTransport
        var negotiated: WebSocketHandshake.Negotiated
        /// The header fields of the server's 101.
        var headers: HTTPHeaders
        /// Bytes that followed the 101 in the same read: the first frames.
        var leftover: [UInt8]
    }

    /// Connects and upgrades: TCP, the GET with `Upgrade: websocket`, and the
    /// server's answer parsed with `HTTP1Parser`. A non-101 answer's body is
    /// read (up to 64 KiB) for the error.
    ///
    /// - Throws: `WebSocketError` (`.upgradeFailed`, `.handshakeFailed`,
    ///   `.invalidHeader`, `.transport`); `CancellationError` on timeout.
    static func handshake(url: HTTPTarget, headers: HTTPHeaders, handshake: WebSocketHandshake,
                          tls: TLSConfiguration, proxy: ProxyServer? = nil, loop: EventLoop) async throws -> Opened {
        let request = try handshake.request(path: url.pathAndQuery, hostHeader: url.hostHeader, headers: headers)
        let stream: SocketStream
        do {
            if let path = url.unixSocketPath {  // ws+unix://
                stream = try await SocketStream.connect(unixPath: path, on: loop)
            } else if let proxy {
                // ws and wss alike go through a tunnel (CONNECT or SOCKS5): the upgrade is the origin's.
                stream = try await ProxyTunnel.connect(through: proxy, scheme: url.scheme, host: url.host, port: url.port,
                                                       on: loop, options: SocketOptions())
            } else {
                stream = try await SocketStream.connect(host: url.host, port: url.port, on: loop)
            }
        } catch let error as TransportError {
            throw WebSocketError(.transport, "cannot connect to \(url.unixSocketPath ?? url.hostHeader)", transport: error)
        } catch let error as ProxyFailure {
            throw WebSocketError(.proxy, error.description, status: error.status, transport: error.transport, proxy: error)
        }
        if url.isSecure {
            do {
                // Nothing of the upgrade is written before the server is verified and its pins checked.
                try await stream.startTLS(tls, host: url.host, port: url.port)
            } catch let error as TLSError {
                await stream.close()
                throw WebSocketError(.tls, "TLS with \(url.hostHeader) failed: \(error.kind)",
                                     transport: .tls(error, operation: "TLS handshake"))
            } catch let error as TransportError {
                await stream.close()
                throw WebSocketError(.transport, "TLS with \(url.hostHeader) failed", transport: error)
            }
        }
        let transport = WebSocketTransport.tcp(stream)
        do {
            try await transport.write([request])
            let parser = HTTP1Parser(mode: .response)
            var head: HTTP1Head?
            var body: [UInt8] = []
            while true {
                guard let chunk = try await transport.read() else {
                    if let head, head.status != 101 {
                        _ = try? parser.finish { if case .end = $0 {} }
                        throw WebSocketError(.upgradeFailed, "the server refused the upgrade with \(head.status)",
                                             status: head.status, body: body, headers: head.headers)
                    }
                    throw WebSocketError(.handshakeFailed, "the server closed the connection during the handshake")
                }
                var ended: Int?
                let outcome = try chunk.withUnsafeBytes { buffer in
                    try parser.feed(buffer) { event in
                        switch event {
                        case .head(let h): head = h
                        case .body(let range): if body.count < 64 * 1024 { body += buffer[range].prefix(64 * 1024 - body.count) }
                        case .end: break
                        }
                    }
                }
                switch outcome {
                case .needMore: continue
                case .upgraded(let consumed), .messageEnded(let consumed): ended = consumed
                }
                guard let head, let consumed = ended else { continue }
                guard head.status == 101 else {
                    throw WebSocketError(.upgradeFailed, "the server refused the upgrade with \(head.status) \(head.reason)",
                                         status: head.status, body: body, headers: head.headers)
                }
                let negotiated = try handshake.validate(status: head.status, headers: head.headers)
                return Opened(transport: transport, negotiated: negotiated, headers: head.headers,
                              leftover: Array(chunk[consumed...]))
            }
        } catch {
            await transport.closeAsync()
            if let error = error as? WebSocketError { throw error }
            if let error = error as? TransportError {
                throw WebSocketError(.transport, "the handshake failed", transport: error)
            }
            if let error = error as? HTTPClientError {
                throw WebSocketError(.handshakeFailed, "malformed handshake response: \(error)")
            }
            throw error
        }
    }
}
