import FiberRuntime

/// The fields of a response that RFC 9111's rules read, found in one pass
/// over its header fields: a cache reads them for every response it stores,
/// and each lookup on its own would be a pass of its own. The first value of a
/// single field, every value of a list, in order: what `first(name:)` and
/// `values(name:)` give.
///
/// It keeps the fields' positions, and reads a value only when asked: a copy
/// of each value found, and of this struct, cost a retain and a release per
/// string on every response stored.
struct CacheFields {
    private let fields: [HTTPHeaders.Field]
    private var dateIndex: Int?
    private var expiresIndex: Int?
    private var ageIndex: Int?
    /// Lists, empty in most responses (and then never allocated).
    private var cacheControlIndices: [Int] = []
    private var varyIndices: [Int] = []

    init(_ headers: HTTPHeaders) {
        fields = headers.fields
        for index in fields.indices {
            // The length first: most fields are none of these, and most lengths tell at once.
            switch fields[index].name.utf8.count {
            case 3 where ageIndex == nil && named(index, "Age"): ageIndex = index
            case 4 where dateIndex == nil && named(index, "Date"): dateIndex = index
            case 4 where named(index, "Vary"): varyIndices.append(index)
            case 7 where expiresIndex == nil && named(index, "Expires"): expiresIndex = index
            case 13 where named(index, "Cache-Control"): cacheControlIndices.append(index)
            default: break
            }
        }
    }

    @inline(__always)
    private func named(_ index: Int, _ name: String) -> Bool { HTTPHeaders.sameName(fields[index].name, name) }

    var date: String? { dateIndex.map { fields[$0].value } }
    var expires: String? { expiresIndex.map { fields[$0].value } }
    var age: String? { ageIndex.map { fields[$0].value } }
    var vary: [String] { varyIndices.map { fields[$0].value } }

    /// The directives of the `Cache-Control` fields (most responses have none: no array is made for them).
    var cacheControl: CacheControl {
        cacheControlIndices.isEmpty ? CacheControl() : CacheControl(values: cacheControlIndices.map { fields[$0].value })
    }

    /// The request header names the response varies on (`HTTPCacheRules.varyNames`), nil for `Vary: *`.
    var varyNames: [String]? { HTTPCacheRules.varyNames(values: vary) }
}
