/// Who may read a logged value.
public enum LogPrivacy: String, Sendable, Hashable, CaseIterable {
    /// Anyone who reads the log: paths, status codes, timings.
    case `public`
    /// Written as `<private>` unless the policy reveals private values (on a
    /// developer's machine): user IDs, e-mail addresses, queries.
    case `private`
    /// Written as `<redacted>`, always: tokens, passwords, card numbers.
    case sensitive
    /// Chosen for each value by the policy's `auto` rule.
    case auto
}

/// How log lines treat what they carry: the rule for `.auto`, whether private
/// values may be shown, and the level of each part of a request the
/// `LoggingInterceptor` logs. Redaction happens before a line reaches the logger,
/// so every backend (every swift-log handler) writes the placeholder, never the value.
public struct LogPrivacyPolicy: Sendable {
    /// Shows `.private` values as they are (for local debugging; never in production).
    public var revealsPrivate: Bool
    /// The level of a `.auto` value, from the value (default: `.private`). An answer of
    /// `.auto` counts as `.private`.
    public var auto: @Sendable (String) -> LogPrivacy
    /// The request path.
    public var path: LogPrivacy
    /// The query string.
    public var query: LogPrivacy
    /// Header values (`Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
    /// are `.sensitive` whatever this says).
    public var headers: LogPrivacy
    /// Bodies, when the interceptor logs them.
    public var body: LogPrivacy
    /// The `curl` command line, when the interceptor logs it (stricter when the request's
    /// body or query is: see `curlPrivacy(for:)`).
    public var curl: LogPrivacy

    /// A policy from its parts; by default paths, header values and bodies (logged
    /// only when asked for) are public, queries and command lines private.
    public init(revealsPrivate: Bool = false, auto: @escaping @Sendable (String) -> LogPrivacy = { _ in .private },
                path: LogPrivacy = .public, query: LogPrivacy = .private, headers: LogPrivacy = .public,
                body: LogPrivacy = .public, curl: LogPrivacy = .private) {
        self.revealsPrivate = revealsPrivate
        self.auto = auto
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.curl = curl
    }

    /// The privacy of `request`'s command line: `curl`, or stricter when the request has a
    /// body or a query the policy hides (a command line shows them whole).
    public func curlPrivacy(for request: FiberRequest) -> LogPrivacy {
        var levels = [curl]
        if request.body?.isEmpty == false || request.bodyStream != nil { levels.append(body) }
        if request.url.query?.isEmpty == false { levels.append(query) }
        return levels.max { Self.strictness($0) < Self.strictness($1) } ?? curl
    }

    /// Public < automatic and private < sensitive (an automatic value may turn out private).
    private static func strictness(_ privacy: LogPrivacy) -> Int {
        switch privacy {
        case .public: 0
        case .auto, .private: 1
        case .sensitive: 2
        }
    }

    /// `value` as a log may show it at `privacy`.
    public func render(_ value: String, _ privacy: LogPrivacy) -> String {
        switch privacy == .auto ? auto(value) : privacy {
        case .public: value
        case .private, .auto: revealsPrivate ? value : "<private>"
        case .sensitive: "<redacted>"
        }
    }
}
