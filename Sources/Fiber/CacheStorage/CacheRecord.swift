import FiberRuntime
import Foundation

/// One stored response as a `CacheStorage` keeps it: the key, the response
/// (status, header fields in order, body), when it arrived and how long it is
/// fresh, and the request header values it varies on.
///
/// A storage keeps records as they are and gives them back unchanged; whether
/// a record may answer a request is decided above it, by the cache's rules.
public struct CacheRecord: Sendable, Codable, Equatable {
    /// The key it is stored under. Keys carry no credentials: a cache that
    /// varies on `Authorization` puts a digest of it in the key, not the value.
    public var key: String
    /// The response's status code.
    public var statusCode: Int
    /// The response's header fields, in order.
    public var headers: HTTPHeaders
    /// The body, as the server sent it.
    public var body: Data
    /// When it arrived, its age on arrival, its lifetime and stale window.
    public var freshness: CacheFreshness
    /// The request header values the response varies on (lowercased name → value, nil when absent).
    public var vary: [String: String?]
    /// Notes of the cache that stored it (such as where it may be kept), kept as they are.
    public var attributes: [String: String]

    /// A record from its parts.
    public init(key: String, statusCode: Int, headers: HTTPHeaders, body: Data, freshness: CacheFreshness,
                vary: [String: String?] = [:], attributes: [String: String] = [:]) {
        self.key = key
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.freshness = freshness
        self.vary = vary
        self.attributes = attributes
    }

    /// Bytes it takes, roughly: body, header fields and key (what limits count).
    public var approximateSize: Int {
        body.count + key.utf8.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}
