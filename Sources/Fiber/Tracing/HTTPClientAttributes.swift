import FiberRuntime
import Foundation

/// What OpenTelemetry's HTTP client semantic conventions record of a request,
/// shared by the spans (`Fiber+Tracing`) and the duration histogram
/// (`SwiftMetricsCollector`), so both name a request the same way.
struct HTTPClientAttributes: Sendable, Hashable {
    /// `http.request.method`.
    let method: String
    /// `url.full`, without user info (the query is kept).
    let urlFull: String
    /// `url.scheme`.
    let scheme: String
    /// `server.address`.
    let serverAddress: String
    /// `server.port`.
    let serverPort: Int

    init(method: String, location: RequestURL) {
        // A plain URL (the runtime's parser) never has user info.
        if let target = location.target {
            self.init(method: method, urlFull: location.text, target: target)
        } else {
            self.init(method: method, url: location.url)
        }
    }

    /// From a URL given as text (`RequestMetrics.url`).
    init(method: String, urlText: String) {
        if let target = HTTPTarget.parsePlain(urlText) {
            self.init(method: method, urlFull: urlText, target: target)
        } else {
            self.init(method: method, url: URL(string: urlText) ?? URL(fileURLWithPath: "/"))
        }
    }

    private init(method: String, urlFull: String, target: HTTPTarget) {
        self.method = method
        self.urlFull = urlFull
        scheme = target.scheme
        serverAddress = target.host
        serverPort = target.port
    }

    private init(method: String, url: URL) {
        self.method = method
        scheme = url.scheme?.lowercased() ?? ""
        serverAddress = url.host ?? ""
        serverPort = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        urlFull = Self.withoutCredentials(url)
    }

    /// `url` with its user and password removed: credentials must not reach a trace backend.
    static func withoutCredentials(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    /// `error.type` of a response: the status code for 4xx and 5xx, else nil (no error).
    static func errorType(status: Int) -> String? {
        status >= 400 ? String(status) : nil
    }

    /// `error.type` of a failure without a response: the error's type name
    /// (an HTTP error that carries a response gives its status instead).
    static func errorType(_ error: any Error) -> String {
        if case .httpError(let status, _, _)? = error as? FiberError, status >= 400 { return String(status) }
        return String(describing: type(of: error))
    }
}
