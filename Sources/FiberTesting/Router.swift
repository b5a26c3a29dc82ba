/// Answers a request; what it throws becomes a `500 Internal Server Error`.
public typealias TestHandler = @Sendable (TestRequest) async throws -> TestResponse

/// Chooses the handler for a request from the registered routes.
///
/// A route matches a path exactly or by prefix, for one method or any. Among
/// the routes that match, the most specific wins: an exact path over a prefix,
/// a longer prefix over a shorter, a route for the request's method over one
/// for any method; among equals, the one registered last (so a test can
/// re-route a path). A HEAD request falls back to the GET routes. If nothing
/// matches, the default handler answers, else `404 Not Found`.
struct Router: Sendable {
    enum Pattern: Sendable, Hashable {
        case exact(String)
        case prefix(String)
    }

    struct Route: Sendable {
        let method: String?
        let pattern: Pattern
        let handler: TestHandler
    }

    private(set) var routes: [Route] = []
    var defaultHandler: TestHandler?

    mutating func add(method: String?, pattern: Pattern, handler: @escaping TestHandler) {
        routes.append(Route(method: method?.uppercased(), pattern: pattern, handler: handler))
    }

    mutating func removeAll() {
        routes.removeAll()
        defaultHandler = nil
    }

    /// The handler for `method` and `path` (the path without the query).
    func handler(method: String, path: String) -> TestHandler {
        var best: (score: Int, handler: TestHandler)?
        for route in routes {
            guard let score = Self.score(route, method: method, path: path) else { continue }
            if best == nil || score >= best!.score { best = (score, route.handler) }
        }
        if let best { return best.handler }
        if let defaultHandler { return defaultHandler }
        return { _ in .notFound }
    }

    /// How specific a match `route` is, or nil if it does not match.
    private static func score(_ route: Route, method: String, path: String) -> Int? {
        let methodScore: Int
        switch route.method {
        case nil: methodScore = 0
        case method?: methodScore = 2
        case "GET"? where method == "HEAD": methodScore = 1
        default: return nil
        }
        switch route.pattern {
        case .exact(let exact):
            guard exact == path else { return nil }
            // Above every prefix: a prefix scores at most 3 * (path length + 1).
            return 3 * (path.utf8.count + 2) + methodScore
        case .prefix(let prefix):
            guard path.hasPrefix(prefix) else { return nil }
            return 3 * prefix.utf8.count + methodScore
        }
    }
}
