import Fiber
import FiberRuntime
import Foundation

/// The last step of `Fiber.webSocket`'s pipeline: it performs the opening
/// handshake on the network and answers the interceptors with the server's
/// own response, its `101` (the connection is kept for the caller) or its
/// refusal (status, headers and body).
///
/// Lifecycle: one per `webSocket` call. The pipeline may call `send` more
/// than once (a retry after a refused upgrade); the last outcome counts, and a
/// connection it replaces is closed. The caller then takes the outcome with
/// `connection(answering:)`, or calls `abandon()` when the pipeline failed;
/// after either, a handshake still completing closes its connection at once,
/// so no connection outlives a call that did not return it.
final class WebSocketUpgradeTransport: FiberTransport {
    private enum Outcome {
        case opened(WebSocketConnection)
        case refused(WebSocketError)
    }

    private struct State {
        var outcome: Outcome?
        /// The caller took the outcome or gave up: later connections have no one to go to.
        var ended = false
    }

    private let subprotocols: [String]
    private let configuration: WebSocketConfiguration
    /// The connection's loop; the pipeline runs on it too, so the handshake starts without a hop.
    private let loop: EventLoop
    private let state = Locked(State())

    init(subprotocols: [String], configuration: WebSocketConfiguration, loop: EventLoop = EventLoopGroup.shared.next()) {
        self.subprotocols = subprotocols
        self.configuration = configuration
        self.loop = loop
    }

    func executorPreference() -> (any TaskExecutor)? { loop }

    /// Opens the connection and answers with the server's response head (and,
    /// for a refusal, its body).
    ///
    /// - Throws: `FiberError` (see `WebSocketError.fiberError`) when the server
    ///   gave no HTTP answer to hand on: the socket, TLS, a malformed or
    ///   unacceptable `101`, a timeout.
    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        guard let url = request.url else { throw FiberError.invalidURL("") }
        var headers = HTTPHeaders()
        for field in request.headers where !WebSocketHandshake.ownedFields.contains(field.name.lowercased()) {
            headers.append(name: field.name, value: field.value)
        }
        let webSocketURL = Fiber.webSocketURL(for: url.absoluteString)
        let cookieTarget = request.cookies == nil ? nil : try? HTTPTarget(webSocketURL: webSocketURL)
        if let cookieTarget, let cookies = request.cookies?.cookieHeader(for: cookieTarget) { headers.appendCookies(cookies) }
        var configuration = configuration
        if let deadline = request.deadlineReading {
            // The client's request deadline bounds the handshake too (at least a millisecond,
            // so that a deadline already past fails as a timeout of the handshake).
            configuration.connectTimeout = min(configuration.connectTimeout,
                                               max(deadline - MonotonicTime.now(), .milliseconds(1)))
        }
        let connection = WebSocketClient.connect(to: webSocketURL, headers: headers,
                                                 subprotocols: subprotocols, configuration: configuration, on: loop)
        do {
            try await connection.waitUntilOpen()
        } catch where error.kind == .upgradeFailed && error.status != nil {
            record(.refused(error))
            storeCookies(error.headers ?? [:], from: cookieTarget, in: request)
            return (Data(error.body ?? []), TransportResponse(statusCode: error.status ?? 0, headers: error.headers ?? [:],
                                                               url: request.url))
        } catch {
            throw error.fiberError
        }
        record(.opened(connection))
        let upgradeHeaders = connection.takeUpgradeHeaders()
        storeCookies(upgradeHeaders, from: cookieTarget, in: request)
        return (Data(), TransportResponse(statusCode: 101, headers: upgradeHeaders, url: request.url))
    }

    /// Gives the handshake response's `Set-Cookie` fields to the client's jar, if it has one.
    private func storeCookies(_ headers: HTTPHeaders, from target: HTTPTarget?, in request: TransportRequest) {
        let values = headers.values(name: "Set-Cookie")
        if let target, !values.isEmpty { request.cookies?.storeCookies(values, from: target) }
    }

    /// The connection the pipeline's handshake opened, once the pipeline returned `response`.
    ///
    /// - Throws: `FiberError.networkError` with a `WebSocketError` `.upgradeFailed`:
    ///   the server's refusal, or, when no handshake reached the server (an
    ///   interceptor answered by itself), that answer's status and body.
    func connection(answering response: FiberResponse) throws(FiberError) -> WebSocketConnection {
        let outcome = state.withLock { state in
            state.ended = true
            return state.outcome.take()
        }
        switch outcome {
        case .opened(let connection)?:
            return connection
        case .refused(let error)?:
            throw error.fiberError
        case nil:
            throw WebSocketError(.upgradeFailed, "an interceptor answered the upgrade with \(response.statusCode); no server did",
                                 status: response.statusCode, body: Array(response.data), headers: response.headers).fiberError
        }
    }

    /// The pipeline failed: a connection its handshake opened is closed.
    func abandon() {
        let outcome = state.withLock { state in
            state.ended = true
            return state.outcome.take()
        }
        if case .opened(let connection)? = outcome { connection.close() }
    }

    private func record(_ outcome: Outcome) {
        let (replaced, ended) = state.withLock { state in
            defer { if !state.ended { state.outcome = outcome } }
            return (state.outcome, state.ended)
        }
        if case .opened(let connection)? = replaced { connection.close() }
        if ended, case .opened(let connection) = outcome { connection.close() }
    }
}
