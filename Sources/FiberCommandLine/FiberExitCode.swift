import ArgumentParser
import Fiber
import FiberRuntime
import FiberWebSocket

/// The `fiber` command's exit statuses, one per kind of failure; the network
/// ones take curl's numbers, so scripts written for curl read them the same.
/// `Docs/CommandLine.md` holds the same table for users.
public enum FiberExitCode: Int32, Sendable, CaseIterable {
    /// Success.
    case success = 0
    /// A failure with no status of its own (a file that cannot be read, a malformed response, …).
    case failure = 1
    /// `fiber bench`: the load test ran, and a `--fail-if` threshold was crossed.
    case thresholdCrossed = 2
    /// The URL is not an absolute http(s) or ws(s) URL.
    case invalidURL = 3
    /// The response had a 4xx status (unless `--ignore-status`).
    case clientErrorStatus = 4
    /// The response had a 5xx status (unless `--ignore-status`).
    case serverErrorStatus = 5
    /// The host name did not resolve.
    case dnsFailure = 6
    /// The connection was refused, or the host could not be reached.
    case connectFailed = 7
    /// The request timed out (`--timeout`, a connect timeout, no byte for the read timeout).
    case timeout = 28
    /// TLS failed: the handshake, a certificate refused, a client certificate missing or rejected.
    case tlsFailure = 35
    /// More redirects than allowed, or a redirect loop.
    case tooManyRedirects = 47
    /// The connection broke during the exchange (reset, closed before the response was whole).
    case connectionLost = 56
    /// The command line is wrong (ArgumentParser's usage status, as sysexits' `EX_USAGE`).
    case usage = 64
    /// The proxy would not carry the request: it wants credentials or refused them,
    /// refused the destination, broke its protocol or closed the connection
    /// (curl's `CURLE_PROXY`). An unreachable or silent proxy takes 6, 7 or 28 instead.
    case proxyFailure = 97

    /// 4 for a 4xx status, 5 for 5xx, nil for any other.
    public static func forStatus(_ status: Int) -> FiberExitCode? {
        switch status {
        case 400..<500: .clientErrorStatus
        case 500..<600: .serverErrorStatus
        default: nil
        }
    }

    /// The status for an error from the runtime, `Fiber` or the WebSocket
    /// client; nil for an error of another kind (a usage mistake, which
    /// ArgumentParser reports itself).
    public static func forError(_ error: any Error) -> FiberExitCode? {
        switch error {
        case let error as HTTPClientError:
            switch error.kind {
            case .invalidURL: return .invalidURL
            case .tls: return .tlsFailure
            case .deadlineExceeded, .readTimeout, .responseHeadTimeout: return .timeout
            case .tooManyRedirects, .redirectLoop: return .tooManyRedirects
            case .connectionClosed: return .connectionLost
            case .proxy: return error.proxy.map(forProxy) ?? .proxyFailure
            case .transport: return error.transport.map(forTransport) ?? .failure
            default: return .failure
            }
        case let error as TransportError: return forTransport(error)
        case is TLSError: return .tlsFailure
        case let error as WebSocketError:
            if error.kind == .invalidURL { return .invalidURL }
            if error.kind == .tls { return .tlsFailure }
            if error.kind == .proxy { return error.proxy.map(forProxy) ?? .proxyFailure }
            // A handshake the server answered with an error status, as a request with that status.
            if let status = error.status, let code = forStatus(status) { return code }
            return error.transport.map(forTransport) ?? .failure
        case let error as FiberError:
            switch error {
            case .networkError(let underlying): return forError(underlying) ?? .failure
            case .timeout: return .timeout
            case .invalidURL: return .invalidURL
            case .httpError(let status, _, _): return forStatus(status) ?? .failure
            default: return .failure
            }
        default: return nil
        }
    }

    /// Runs `body`; an error with a status here is printed on `out`'s standard
    /// error as one line and becomes that exit status; any other is rethrown
    /// (ArgumentParser reports usage mistakes itself).
    static func exiting<T>(on out: CommandOutput, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            guard let code = forError(error) else { throw error }
            out.error("fiber: \(error)\n")
            throw ExitCode(code.rawValue)
        }
    }

    /// A proxy that could not be reached fails as a connection to a server would
    /// (its name unresolved 6, refused 7, silent 28); one that answered, with 97.
    private static func forProxy(_ failure: ProxyFailure) -> FiberExitCode {
        switch failure.reason {
        case .unreachable: failure.transport.map(forTransport) ?? .connectFailed
        case .timedOut: .timeout
        default: .proxyFailure
        }
    }

    private static func forTransport(_ error: TransportError) -> FiberExitCode {
        switch error.kind {
        case .dnsFailure: .dnsFailure
        case .connectionRefused, .unreachable: .connectFailed
        case .timeout: .timeout
        case .tls: .tlsFailure
        case .connectionReset, .closedByPeer: .connectionLost
        default: .failure
        }
    }
}
