import FiberTesting
import Testing

/// Runs `body` with a fresh nginx (see `NginxServer.start`), and stops it afterwards, whatever happens.
///
/// nginx needing SIGKILL, or logging `[emerg]`, `[alert]` or `[crit]`, is recorded as an issue.
func withNginx<T>(
    server: String, http: String = "", tls: Bool = false, http2: Bool = false, prepare: (_ root: String) throws -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (NginxServer) async throws -> T
) async throws -> T {
    let nginx = try await NginxServer.start(server: server, http: http, tls: tls, http2: http2, prepare: prepare)
    let result: Result<T, any Error>
    do {
        result = .success(try await body(nginx))
    } catch {
        result = .failure(error)
    }
    for problem in await nginx.stop() { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    return try result.get()
}
