/// A header list as nghttp2 takes it: every name and value in one byte
/// buffer, each followed by a NUL, and where each one lies. Two allocations
/// for a whole request's list, however many fields it has.
struct HTTP2FieldBlock: Sendable {
    /// Where one field's name and value lie in `bytes`.
    struct Span: Sendable {
        let nameStart: Int, nameCount: Int, valueStart: Int, valueCount: Int
    }

    private(set) var bytes: [UInt8] = []
    private(set) var spans: [Span] = []

    /// An empty block with room for `fields` fields of `bytes` bytes in all.
    init(byteCapacity: Int, fieldCapacity: Int) {
        bytes.reserveCapacity(byteCapacity)
        spans.reserveCapacity(fieldCapacity)
    }

    /// A block of `pairs`, as given.
    init(_ pairs: [(name: [UInt8], value: [UInt8])]) {
        self.init(byteCapacity: pairs.reduce(0) { $0 + $1.name.count + $1.value.count + 2 }, fieldCapacity: pairs.count)
        for pair in pairs { append(name: pair.name, value: pair.value) }
    }

    /// Appends a field.
    mutating func append<Name: Sequence<UInt8>, Value: Sequence<UInt8>>(name: Name, value: Value) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name)
        let nameCount = bytes.count - nameStart
        bytes.append(0)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        spans.append(Span(nameStart: nameStart, nameCount: nameCount, valueStart: valueStart, valueCount: bytes.count - valueStart))
        bytes.append(0)
    }

    /// Appends a field whose name is written in lower case (HTTP/2 sends no upper-case name).
    mutating func append(lowercasing name: String, value: String) {
        append(name: name.utf8.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, value: value.utf8)
    }

    /// The number of fields.
    var count: Int { spans.count }

    /// The fields as separate byte arrays, in order (for tests and messages).
    var pairs: [(name: [UInt8], value: [UInt8])] {
        spans.map { span in
            (Array(bytes[span.nameStart..<(span.nameStart + span.nameCount)]),
             Array(bytes[span.valueStart..<(span.valueStart + span.valueCount)]))
        }
    }
}
