import Fiber
import FiberRuntime
import Foundation

extension Fiber {
    /// Opens a WebSocket to `path` of this client's base URL (`https` becomes
    /// `wss`, `http` becomes `ws`; an absolute `ws(s)://` URL is used as is).
    ///
    /// The opening handshake goes through the client's interceptors first, as
    /// a `GET` with `Upgrade: websocket`: whatever they add (an `Authorization`
    /// from `AuthInterceptor`, signatures, trace headers, default headers)
    /// goes out with the upgrade. The pipeline's transport is not used; its
    /// answer to the interceptors is a `101`.
    ///
    /// - Throws: `FiberError`: `.invalidURL`; `.networkError` with the
    ///   `WebSocketError` (a refused upgrade with its status and body, TLS,
    ///   the socket); `.timeout`; errors of interceptors as they were thrown.
    public func webSocket(_ path: String, headers: [String: String] = [:], subprotocols: [String] = [],
                          configuration: WebSocketConfiguration = WebSocketConfiguration()) async throws -> WebSocketConnection {
        let capture = HandshakeCapture()
        let probe = Fiber(baseURL) { [self] probe in
            probe = self.configuration
            probe.transport = capture
            probe.validateStatus = nil
        }
        var request = probe.request(.get, Self.httpURL(for: path), headers: headers)
        request = request.header("Upgrade", "websocket").header("Connection", "Upgrade")
        _ = try await probe.send(request)
        guard let sent = capture.request, let httpURL = sent.url else { throw FiberError.invalidURL(path) }
        var handshakeHeaders = HTTPHeaders()
        // The WebSocket handshake writes these itself.
        let own: Set<String> = ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
                                "sec-websocket-protocol", "sec-websocket-extensions", "content-length"]
        for field in sent.headers where !own.contains(field.name.lowercased()) {
            handshakeHeaders.add(name: field.name, value: field.value)
        }
        let url = Self.webSocketURL(for: httpURL.absoluteString)
        do {
            return try await WebSocketClient.open(url, headers: handshakeHeaders, subprotocols: subprotocols, configuration: configuration)
        } catch {
            throw error.fiberError
        }
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

/// The pipeline's last step for a handshake: it records the request the
/// interceptors made and answers `101`, so nothing goes to the network.
private final class HandshakeCapture: FiberTransport, @unchecked Sendable {
    // @unchecked: written once by the pipeline's single call, read after it returned.
    private(set) var request: TransportRequest?

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        self.request = request
        return (Data(), TransportResponse(statusCode: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"], url: request.url))
    }
}
