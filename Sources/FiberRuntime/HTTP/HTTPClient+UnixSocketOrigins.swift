extension HTTPClient.Configuration {
    /// The Unix domain socket a request to `target` connects to: the one its URL
    /// names (`http+unix://`), else the one its origin is pinned to in
    /// `unixSocketOrigins`, else nil (the network).
    func unixSocketPath(for target: HTTPTarget) -> String? {
        if let path = target.unixSocketPath { return path }
        // Most clients pin nothing: no origin string is made for them.
        return unixSocketOrigins.isEmpty ? nil : unixSocketOrigins[target.origin]
    }

    /// Each pinned origin must be `http(s)://host[:port]` as `HTTPTarget.origin` writes it
    /// (lower case, no default port, no path), and each path one a socket can have.
    ///
    /// - Throws: `HTTPClient.ConfigurationError` naming `unixSocketOrigins` and the entry.
    func validateUnixSocketOrigins() throws(HTTPClient.ConfigurationError) {
        typealias Check = HTTPClient.ConfigurationError
        for (origin, path) in unixSocketOrigins.sorted(by: { $0.key < $1.key }) {
            let target = try? HTTPTarget(origin + "/")
            try Check.require(target.map { $0.origin == origin && !$0.isUnixSocket } ?? false && origin == origin.lowercased(),
                              "unixSocketOrigins",
                              "\(origin) is not an origin as `http://host[:port]` (lower case, no default port, no path)")
            try Check.require(UnixSocketPath.problem(path) == nil, "unixSocketOrigins",
                              "the socket for \(origin): \(UnixSocketPath.problem(path) ?? "")")
        }
    }
}
