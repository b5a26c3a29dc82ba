import Logging

/// The pool's connection-level events, for a client given a logger
/// (`HTTPClient.init(eventLoopGroup:configuration:logger:)`). Each is a
/// constant message with its values in metadata, named as OpenTelemetry names
/// them where it has a name, so that log backends can index them. Called only
/// when there is a logger.
extension ConnectionPool {
    /// A request waits for a connection. Debug when no connection is being
    /// opened for it (the origin is at its connection limit: pool exhaustion),
    /// trace when one is on its way.
    func logWaiting(_ key: Key, _ statistics: ConnectionPoolStateMachine.Statistics,
                    opening actions: [ConnectionPoolStateMachine.Action]) {
        let opens = actions.contains { if case .createConnection = $0 { true } else { false } }
        var metadata = Self.metadata(key)
        metadata["fiber.pool.open"] = "\(statistics.open)"
        metadata["fiber.pool.leased"] = "\(statistics.leased)"
        metadata["fiber.pool.connecting"] = "\(statistics.connecting)"
        metadata["fiber.pool.waiting"] = "\(statistics.waiting)"
        if opens {
            logger?.trace("request waits for a new connection", metadata: metadata)
        } else {
            logger?.debug("request waits for a connection: the pool is at its limit", metadata: metadata)
        }
    }

    /// A TLS connection was set up with a full handshake though resumption is on
    /// (no session kept for the peer, or the server refused the one offered).
    /// Synchronous: the stream is on this pool's loop, and read there at once.
    func logHandshake(_ key: Key, of stream: SocketStream) {
        guard stream.assumeIsolated({ $0.tls?.isResumed == false }) else { return }
        var metadata = Self.metadata(key)
        metadata["tls.resumed"] = "false"
        logger?.trace("TLS session not resumed: full handshake", metadata: metadata)
    }

    /// Idle connections the sweep closes (idle too long, or past their lifetime).
    func logIdleCloses(_ key: Key, _ actions: [ConnectionPoolStateMachine.Action]) {
        for case .closeConnection(let id) in actions {
            var metadata = Self.metadata(key)
            metadata["fiber.connection.id"] = "\(id)"
            logger?.trace("idle connection closed", metadata: metadata)
        }
    }

    /// The origin's fields, and the proxy by its description (never its credentials).
    private static func metadata(_ key: Key) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["server.address": "\(key.host)", "server.port": "\(key.port)", "url.scheme": "\(key.scheme)"]
        if let proxy = key.proxy { metadata["fiber.proxy"] = "\(proxy)" }
        return metadata
    }
}
