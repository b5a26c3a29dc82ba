import Foundation

extension CookieStore {
    /// Brings `domain` within `maxCookiesPerDomain` and the store within `maxCookies`:
    /// expired cookies go first, then the least recently used (RFC 6265 §5.3's advice).
    mutating func evict(over domain: String, now: Date) {
        let perDomain = max(0, limits.maxCookiesPerDomain)
        if byDomain[domain, default: []].count > perDomain {
            removeExpired(in: domain, now: now)
            var list = byDomain[domain, default: []]
            if list.count > perDomain {
                list.sort { $0.accessOrder < $1.accessOrder }
                replace(domain, with: Array(list.dropFirst(list.count - perDomain)))
            }
        }
        let total = max(0, limits.maxCookies)
        guard count > total else { return }
        removeExpired(now: now)
        guard count > total else { return }
        let orders = byDomain.values.joined().lazy.map(\.accessOrder)
        // One cookie over (each store past the limit): one pass for the oldest, no sort.
        let excess = count - total
        let doomed = excess == 1 ? Set(orders.min().map { [$0] } ?? []) : Set(orders.sorted().prefix(excess))
        for (key, list) in byDomain where list.contains(where: { doomed.contains($0.accessOrder) }) {
            replace(key, with: list.filter { !doomed.contains($0.accessOrder) })
        }
    }

    /// Removes `domain`'s cookies expired at `now`.
    mutating func removeExpired(in domain: String, now: Date) {
        guard let list = byDomain[domain], list.contains(where: { $0.isExpired(at: now) }) else { return }
        let kept = list.filter { !$0.isExpired(at: now) }
        if kept.count != list.count { replace(domain, with: kept) }
    }

    /// Sets `domain`'s cookies to `list` (none: the domain goes), keeping `count` right.
    mutating func replace(_ domain: String, with list: [Cookie]) {
        count += list.count - (byDomain[domain]?.count ?? 0)
        byDomain[domain] = list.isEmpty ? nil : list
    }
}
