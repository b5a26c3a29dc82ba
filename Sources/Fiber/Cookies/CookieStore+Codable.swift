import Foundation

extension CookieStore {
    private enum CodingKeys: String, CodingKey {
        case limits, publicSuffixes, cookies
    }

    /// A store saved by `encode(to:)`: its limits, public suffixes and cookies.
    ///
    /// - Throws: `DecodingError` when the data is not such a store.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(publicSuffixes: try container.decode(Set<String>.self, forKey: .publicSuffixes),
                  limits: try container.decode(Limits.self, forKey: .limits))
        for cookie in try container.decode([Cookie].self, forKey: .cookies) {
            byDomain[cookie.domain, default: []].append(cookie)
            nextOrder = max(nextOrder, cookie.creationOrder + 1, cookie.accessOrder + 1)
        }
        count = byDomain.values.reduce(0) { $0 + $1.count }
    }

    /// Writes the limits, the public suffixes and every cookie (`cookies`).
    ///
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(limits, forKey: .limits)
        try container.encode(publicSuffixes.sorted(), forKey: .publicSuffixes)
        try container.encode(cookies, forKey: .cookies)
    }
}
