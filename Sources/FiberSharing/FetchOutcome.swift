/// What one network round of `getCached` produced: the entry (stored or not)
/// and how it was obtained.
struct FetchOutcome: Sendable {
    var entry: CacheEntry
    var source: CacheSource
}
