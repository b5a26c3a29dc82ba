import CLibUV

extension SocketStream {
    /// Connects to `host`:`port` over TCP: resolves the name, then races the
    /// addresses with Happy Eyeballs (RFC 8305) until one connects.
    ///
    /// - Parameters:
    ///   - host: a name to resolve, or an IP literal.
    ///   - port: the TCP port.
    ///   - resolver: resolves `host` (default: the shared, caching resolver).
    ///   - options: socket options, the connect timeout and the Happy Eyeballs delay.
    ///   - loop: the loop that will own the stream; by default the caller's
    ///     loop, else the next loop of the shared group.
    /// - Throws: `TransportError` with kind `.dnsFailure`, `.connectionRefused`,
    ///   `.unreachable`, `.timeout` or `.eventLoopShutdown` (host and address
    ///   attached); `CancellationError`; `HTTPClient.ConfigurationError` before
    ///   anything opens when `options` cannot work (`SocketOptions.validate()`).
    public static func connect(
        host: String, port: Int, on loop: EventLoop? = nil,
        options: SocketOptions = SocketOptions(), resolver: Resolver = .shared
    ) async throws -> SocketStream {
        try options.validate()
        let loop = loop ?? EventLoopGroup.shared.next()
        let addresses = try await resolver.resolve(host: host, port: port, on: loop)
        return try await connect(to: addresses, host: host, on: loop, options: options)
    }

    /// Connects to the first of `addresses` that answers, with Happy Eyeballs.
    ///
    /// - Throws: as `connect(host:port:on:options:resolver:)`.
    public static func connect(
        to addresses: [SocketAddress], host: String? = nil, on loop: EventLoop? = nil,
        options: SocketOptions = SocketOptions()
    ) async throws -> SocketStream {
        try options.validate()
        let loop = loop ?? EventLoopGroup.shared.next()
        let name = host ?? addresses.first?.host ?? ""
        let connector = TCPConnector(host: name, addresses: addresses, options: options, loop: loop)
        return try await connector.connect()
    }

    /// Connects to the Unix domain socket at `path` (a sidecar, `/var/run/docker.sock`).
    ///
    /// - Throws: `TransportError`, its `address` `unix:PATH`: `.connectionRefused` when nobody
    ///   listens, `.noSuchSocket` when there is no such file, `.invalidSocketPath` for a path
    ///   longer than `sun_path` holds (107 bytes), empty or with a NUL; `CancellationError`;
    ///   `HTTPClient.ConfigurationError` when `options` cannot work.
    public static func connect(
        unixPath path: String, on loop: EventLoop? = nil, options: SocketOptions = SocketOptions()
    ) async throws -> SocketStream {
        try options.validate()
        if let problem = UnixSocketPath.problem(path) {
            throw TransportError(.invalidSocketPath, operation: "connect", address: "unix:\(path)", systemMessage: problem)
        }
        let loop = loop ?? EventLoopGroup.shared.next()
        let once = OnceContinuation<SocketStream>()
        return try await withTaskCancellationHandler {
            try await once.wait {
                do {
                    try loop.execute {
                        do {
                            let handle = try UVHandle.make(UV_NAMED_PIPE, on: loop, operation: "connect") {
                                uv_pipe_init(loop.uvLoop, $0.pipe, 0)
                            }
                            let request = UVRequest.make(UV_CONNECT)
                            request.completion = { status in
                                if status < 0 {
                                    handle.close()
                                    once.resume(with: .failure(UVError.unixConnectError(status, path: path)))
                                } else if !once.resume(with: .success(SocketStream(adopting: handle, remoteAddress: .unix(path: path), options: options))) {
                                    handle.close()
                                }
                            }
                            uv_pipe_connect(request.pointer(as: uv_connect_t.self), handle.pipe, path, UVRequest.connectCallback)
                        } catch {
                            once.resume(with: .failure(error))
                        }
                    }
                } catch {
                    once.resume(with: .failure(TransportError(.eventLoopShutdown, operation: "connect", address: "unix:\(path)")))
                }
            }
        } onCancel: {
            once.resume(with: .failure(CancellationError()))
        }
    }
}
