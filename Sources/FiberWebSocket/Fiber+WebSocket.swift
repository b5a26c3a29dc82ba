import Fiber
import FiberRuntime
import Foundation

extension Fiber {
    /// Opens a WebSocket to `path` of this client's base URL (`https` becomes
    /// `wss`, `http` becomes `ws`; an absolute `ws(s)://` URL is used as is).
    ///
    /// The opening handshake runs through the client's interceptors as a `GET`
    /// with `Upgrade: websocket`, and the pipeline's last step performs it on
    /// the network: what the interceptors add (an `Authorization` from
    /// `AuthInterceptor`, signatures, trace and default headers) goes out with
    /// the upgrade, and they see the server's own answer: its `101`, or its
    /// refusal with status, headers and body (which logging, metrics and
    /// retries then act on). The client's transport is not used. An upgrade is
    /// never shared or cached: `DeduplicationInterceptor` is left out of its
    /// pipeline, and the request carries `.meta("cache", "skip")`, which
    /// `CacheInterceptor` honours both ways.
    ///
    /// - Throws: `FiberError`: `.invalidURL`; `.networkError` with the
    ///   `WebSocketError` (`.invalidConfiguration` before anything is sent, a
    ///   refused upgrade with its status and body, TLS, the socket, an
    ///   interceptor that answered without the server); `.timeout`; errors of
    ///   interceptors as they were thrown.
    public func webSocket(_ path: String, headers: [String: String] = [:], subprotocols: [String] = [],
                          configuration: WebSocketConfiguration = WebSocketConfiguration()) async throws -> WebSocketConnection {
        do {
            try configuration.validate()
        } catch {
            throw error.fiberError
        }
        let upgrade = WebSocketUpgradeTransport(subprotocols: subprotocols, configuration: configuration)
        let pipeline = Fiber(baseURL) { [self] pipeline in
            pipeline = self.configuration
            pipeline.transport = upgrade
            pipeline.validateStatus = nil
            // Deduplication would hand one caller's connection (or refusal) to another.
            pipeline.interceptors.removeAll { $0 is DeduplicationInterceptor }
        }
        let request = pipeline.request(.get, Self.httpURL(for: path), headers: headers)
            .header("Upgrade", "websocket").header("Connection", "Upgrade")
            .meta("cache", "skip")
        let response: FiberResponse
        do {
            response = try await pipeline.send(request)
        } catch {
            upgrade.abandon()
            throw error
        }
        return try upgrade.connection(answering: response)
    }

    /// `path` as the pipeline sees it: `ws(s)://` becomes `http(s)://`.
    static func httpURL(for path: String) -> String {
        if path.hasPrefix("wss://") { return "https://" + path.dropFirst("wss://".count) }
        if path.hasPrefix("ws://") { return "http://" + path.dropFirst("ws://".count) }
        return path
    }

    /// An `http(s)` URL as the WebSocket URL it upgrades to.
    static func webSocketURL(for url: String) -> String {
        if url.hasPrefix("https://") { return "wss://" + url.dropFirst("https://".count) }
        if url.hasPrefix("http://") { return "ws://" + url.dropFirst("http://".count) }
        return url
    }
}

extension WebSocketError {
    /// The error as the Fiber API reports it: `.invalidURL`, `.timeout` for
    /// a connect, ping or close timeout, `.encodingError`/`.decodingError`
    /// for a JSON message, `.networkError` with this error for the rest.
    public var fiberError: FiberError {
        switch kind {
        case .invalidURL: .invalidURL(message)
        case .pingTimeout, .closeTimeout: .timeout
        case .transport where transport?.kind == .timeout: .timeout
        default: .networkError(underlying: self)
        }
    }
}
