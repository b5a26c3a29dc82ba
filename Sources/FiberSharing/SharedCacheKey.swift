import Crypto
import Foundation

/// The cache keys of `SharedFiber`: `METHOD:path?query` (query sorted by
/// name, names and values percent-encoded) then a space and a scope, the
/// first 16 hex digits of the SHA-256 of the client's base URL and
/// credentials. The readable part makes prefix invalidation work
/// (`"GET:/users"`); the scope keeps two servers or two users apart without
/// writing a token anywhere. `Vary` is matched against the stored request
/// header values (`CacheEntry.matches`).
///
/// Not `CacheInterceptor`'s key (method, whole URL and `Authorization`, hashed
/// once): that one must be made with no allocation on every request, and
/// nothing invalidates its entries by path prefix.
enum SharedCacheKey {
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    private static let pathAllowed = unreserved.union(CharacterSet(charactersIn: "/:@!$&'()*+,;=%"))

    /// `METHOD:path` with the query, if any: the part that invalidation by path and prefix sees.
    static func primary(method: String, path: String, query: [String: String]) -> String {
        let encodedPath = path.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? path
        guard !query.isEmpty else { return "\(method):\(encodedPath)" }
        let items = query.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }
        return "\(method):\(encodedPath)?\(items.joined(separator: "&"))"
    }

    /// The full key: the primary part, a space, the scope of `baseURL` and `credential`.
    static func key(primary: String, baseURL: String, credential: String?) -> String {
        "\(primary) \(scope(baseURL: baseURL, credential: credential))"
    }

    /// 16 hex digits naming the origin and credential.
    static func scope(baseURL: String, credential: String?) -> String {
        let digest = SHA256.hash(data: Data("\(baseURL)\n\(credential ?? "")".utf8))
        return digest.prefix(8).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// The primary part of a full key (everything before the first space).
    static func primaryPart(of key: String) -> Substring {
        key.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(key)
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
