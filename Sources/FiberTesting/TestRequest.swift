import FiberRuntime

/// One complete request as the test server received it: its head, its whole
/// body (de-chunked), its trailers, and where it came from.
///
/// The server builds one for every request it reads in full, records it (see
/// `TestHTTPServer.recordedRequests()`) and passes it to the route's handler.
public struct TestRequest: Sendable, CustomStringConvertible {
    /// An HTTP version, `HTTP/1.1` being `Version(major: 1, minor: 1)`.
    public struct Version: Sendable, Hashable, CustomStringConvertible {
        /// The major version (1).
        public var major: Int
        /// The minor version (0 or 1).
        public var minor: Int
        /// A version from its two numbers.
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }
        /// `HTTP/1.0`.
        public static let http1_0 = Version(major: 1, minor: 0)
        /// `HTTP/1.1`.
        public static let http1_1 = Version(major: 1, minor: 1)
        /// As on the request line: `HTTP/1.1`.
        public var description: String { "HTTP/\(major).\(minor)" }
    }

    /// One `name=value` pair of the query, percent-decoded (`+` read as a space).
    public struct QueryItem: Sendable, Hashable {
        /// The decoded name.
        public var name: String
        /// The decoded value; nil when the item had no `=` (`?flag`).
        public var value: String?
        /// A query item from its parts.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// The method as sent (`GET`, `POST`, …).
    public let method: String
    /// The request target exactly as it appeared on the request line (`/a/b?x=1`).
    public let target: String
    /// The target's path, without the query (still percent-encoded, as routes match it).
    public let path: String
    /// The target's raw query (after `?`), nil when there is none.
    public let rawQuery: String?
    /// The query's items, in order, decoded.
    public let queryItems: [QueryItem]
    /// The header fields, in order.
    public let headers: HTTPHeaders
    /// The body, whole; chunked bodies arrive here de-chunked.
    public let body: [UInt8]
    /// Trailer fields after a chunked body (empty otherwise).
    public let trailers: HTTPHeaders
    /// The version on the request line.
    public let version: Version
    /// What the parser concluded from the version and `Connection`: would the
    /// client keep the connection open after the response?
    public let keepAlive: Bool
    /// The ordinal of the connection the request came on, from 1 in accept
    /// order. Two requests with the same number shared a connection (keep-alive).
    public let connectionNumber: Int
    /// The ordinal of the request on its connection, from 1.
    public let numberOnConnection: Int
    /// The ordinal of the request on the whole server, from 1 in the order the
    /// requests were completely received.
    public let sequenceNumber: Int
    /// When the server finished reading the request.
    public let receivedAt: ContinuousClock.Instant

    /// Builds a request (the server does this; tests of handlers can too).
    public init(
        method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        trailers: HTTPHeaders = HTTPHeaders(), version: Version = .http1_1, keepAlive: Bool = true,
        connectionNumber: Int = 0, numberOnConnection: Int = 0, sequenceNumber: Int = 0,
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.target = target
        let (path, query) = Self.split(target)
        self.path = path
        self.rawQuery = query
        self.queryItems = query.map(Self.parseQuery) ?? []
        self.headers = headers
        self.body = body
        self.trailers = trailers
        self.version = version
        self.keepAlive = keepAlive
        self.connectionNumber = connectionNumber
        self.numberOnConnection = numberOnConnection
        self.sequenceNumber = sequenceNumber
        self.receivedAt = receivedAt
    }

    /// The body decoded as UTF-8 (invalid bytes become U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first decoded value of the query item `name`; nil when absent or valueless.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The first value of the header `name` (any case).
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// One line for logs: sequence number, method, target, version, connection, body size.
    public var description: String {
        "#\(sequenceNumber) \(method) \(target) \(version) (connection \(connectionNumber), \(body.count) body bytes)"
    }

    // MARK: Parsing the target

    /// Path and query of an origin-form (`/p?q`) or absolute-form (`http://h/p?q`) target.
    static func split(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let lowered = rest.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let afterScheme = rest[rest.index(rest.firstIndex(of: ":")!, offsetBy: 3)...]
            rest = afterScheme.firstIndex { $0 == "/" || $0 == "?" }.map { afterScheme[$0...] } ?? ""
        }
        guard let mark = rest.firstIndex(of: "?") else {
            return (rest.isEmpty ? "/" : String(rest), nil)
        }
        let path = rest[..<mark]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: mark)...]))
    }

    /// `a=1&b=x+y&c` as items, percent-decoded, `+` as space; empty pieces skipped.
    static func parseQuery(_ query: String) -> [QueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: "=") {
                return QueryItem(name: decodeComponent(piece[..<equals]),
                                 value: decodeComponent(piece[piece.index(after: equals)...]))
            }
            return QueryItem(name: decodeComponent(piece), value: nil)
        }
    }

    /// Percent-decodes `text` and reads `+` as a space; a malformed escape is kept as written.
    static func decodeComponent(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count,
               let high = PercentEncoding.hexValue(bytes[i + 1]), let low = PercentEncoding.hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

}
