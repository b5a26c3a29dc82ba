import FiberRuntime

/// The fields of a response that RFC 9111's rules read, gathered in one pass
/// over its header fields: a cache reads them for every response it stores,
/// and each lookup on its own would be a pass of its own. The first value of a
/// single field, every value of a list, in order: what `first(name:)` and
/// `values(name:)` give.
struct CacheFields {
    var cacheControl: [String] = []
    var vary: [String] = []
    var date: String?
    var expires: String?
    var age: String?

    init(_ headers: HTTPHeaders) {
        // Fields lent, not copied: only the values kept are retained.
        headers.forEachField { field in
            // The length first: most fields are none of these, and most lengths tell at once.
            switch field.name.utf8.count {
            case 3 where age == nil && HTTPHeaders.sameName(field.name, "Age"): age = field.value
            case 4 where date == nil && HTTPHeaders.sameName(field.name, "Date"): date = field.value
            case 4 where HTTPHeaders.sameName(field.name, "Vary"): vary.append(field.value)
            case 7 where expires == nil && HTTPHeaders.sameName(field.name, "Expires"): expires = field.value
            case 13 where HTTPHeaders.sameName(field.name, "Cache-Control"): cacheControl.append(field.value)
            default: break
            }
        }
    }
}
