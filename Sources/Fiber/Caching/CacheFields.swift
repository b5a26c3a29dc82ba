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
        // An immutable array, indexed: its fields are read in place, and only the values kept are retained.
        let fields = headers.fields
        for index in fields.indices {
            let name = fields[index].name
            // The length first: most fields are none of these, and most lengths tell at once.
            switch name.utf8.count {
            case 3 where age == nil && HTTPHeaders.sameName(name, "Age"): age = fields[index].value
            case 4 where date == nil && HTTPHeaders.sameName(name, "Date"): date = fields[index].value
            case 4 where HTTPHeaders.sameName(name, "Vary"): vary.append(fields[index].value)
            case 7 where expires == nil && HTTPHeaders.sameName(name, "Expires"): expires = fields[index].value
            case 13 where HTTPHeaders.sameName(name, "Cache-Control"): cacheControl.append(fields[index].value)
            default: break
            }
        }
    }
}
