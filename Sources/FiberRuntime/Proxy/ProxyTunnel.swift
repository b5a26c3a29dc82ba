/// Connects to a proxy and, unless it forwards the request as it is, opens a
/// tunnel through it: performs `HTTPConnectHandshake` or `SOCKS5Handshake`
/// over a `SocketStream`. The whole handshake is bounded by the connect
/// timeout: a proxy that accepts and says nothing fails with `.timedOut`.
///
/// The stream returned is connected to the proxy; through a tunnel, it then
/// carries the destination's bytes (the caller starts TLS on it for https).
package enum ProxyTunnel {
    /// A stream to `host`:`port` through `proxy`, for a request of `scheme`.
    ///
    /// - Throws: `ProxyFailure` (its `transport` says why the proxy could not be
    ///   reached); `CancellationError`; `HTTPClient.ConfigurationError` when `options` cannot work.
    package static func connect(
        through proxy: ProxyServer, scheme: String, host: String, port: Int, on loop: EventLoop,
        options: SocketOptions, resolver: Resolver = .shared
    ) async throws -> SocketStream {
        let destination = ProxyServer.authority(host: host, port: port)
        let stream: SocketStream
        do {
            stream = try await SocketStream.connect(host: proxy.host, port: proxy.port, on: loop, options: options,
                                                    resolver: resolver)
        } catch let error as TransportError {
            throw ProxyFailure(.unreachable, proxy: proxy, destination: destination, transport: error)
        }
        if proxy.forwards(scheme: scheme) { return stream }
        // nil while the handshake runs; true once the timer cut it, false once it ended first.
        let timedOut = Locked<Bool?>(nil)
        let timer = try? loop.scheduleTask(in: options.connectTimeout) {
            let cut = timedOut.withLock { state -> Bool in
                guard state == nil else { return false }
                state = true
                return true
            }
            guard cut else { return }
            stream.onLoop((), { stream, _ in stream.reset() })
        }
        defer { timer?.cancel() }
        do {
            switch proxy.kind {
            case .http: try await connectOverHTTP(stream, proxy: proxy, host: host, port: port, destination: destination)
            case .socks5: try await connectOverSOCKS5(stream, proxy: proxy, host: host, port: port, destination: destination)
            }
            let cut = timedOut.withLock { state in
                if state == nil { state = false }
                return state == true
            }
            if cut { throw TransportError(.timeout, operation: "proxy handshake") }
            return stream
        } catch {
            await stream.close()
            if timedOut.withLock({ $0 == true }) {
                throw ProxyFailure(.timedOut, proxy: proxy, destination: destination,
                                   detail: "no tunnel within the connect timeout (\(options.connectTimeout))")
            }
            if let error = error as? TransportError {
                throw ProxyFailure(.closed, proxy: proxy, destination: destination, detail: "during the handshake",
                                   transport: error)
            }
            throw error
        }
    }

    private static func connectOverHTTP(_ stream: SocketStream, proxy: ProxyServer, host: String, port: Int,
                                        destination: String) async throws {
        try await stream.write(HTTPConnectHandshake.request(host: host, port: port, credentials: proxy.credentials))
        var handshake = HTTPConnectHandshake()
        // Each read brings at least a byte, and a head past maxHeadBytes fails: the loop is bounded.
        while true {
            let outcome = if let chunk = try await stream.read() { handshake.received(chunk) } else { handshake.closed() }
            switch outcome {
            case .needMore: continue
            case .established: return
            case .failed(let reason, let status, let detail):
                throw ProxyFailure(reason, proxy: proxy, destination: destination, status: status, detail: detail)
            }
        }
    }

    private static func connectOverSOCKS5(_ stream: SocketStream, proxy: ProxyServer, host: String, port: Int,
                                          destination: String) async throws {
        var handshake = SOCKS5Handshake(host: host, port: port, credentials: proxy.credentials)
        try await stream.write(handshake.greeting())
        // At most a few hundred bytes arrive before the handshake ends or fails (each state takes a bounded reply).
        while true {
            let step = if let chunk = try await stream.read() { handshake.received(chunk) } else { handshake.closed() }
            switch step {
            case .needMore: continue
            case .send(let bytes): try await stream.write(bytes)
            case .established: return
            case .failed(let reason, let code, let detail):
                throw ProxyFailure(reason, proxy: proxy, destination: destination, replyCode: code, detail: detail)
            }
        }
    }
}
