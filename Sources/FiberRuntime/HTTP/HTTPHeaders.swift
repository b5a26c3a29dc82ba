/// HTTP header fields in the order they were given or received, with
/// case-insensitive lookup; a name may appear several times.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable, Codable {
        /// The field's name as given (compared without regard to case).
        public var name: String
        /// The field's value.
        public var value: String
        /// A field from its name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order. (Package-wide so that a caller reading a few fields of many,
    /// the cache's rules, can index an immutable copy: its elements are then lent in
    /// place, where a closure handed each one retained both strings of every field.)
    package private(set) var fields: [Field] = []

    /// No fields.
    public init() {}

    /// Fields from name–value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The number of fields.
    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Appends a field, keeping any others of the same name (a field that may repeat,
    /// such as `Set-Cookie`, or a list sent as several lines).
    public mutating func append(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Sets `name` to `value`: replaces every field of that name (any case) with this
    /// one, or adds it. (`append(name:value:)` keeps the others.)
    public mutating func add(name: String, value: String) { replaceOrAdd(name: name, value: value) }

    /// Room for `n` fields, so that a parsed head grows its storage once rather than field by field.
    mutating func reserveCapacity(_ n: Int) { fields.reserveCapacity(n) }

    /// Replaces every field named `name` (any case) with one field, or removes them for nil.
    public mutating func replaceOrAdd(name: String, value: String?) {
        // Usually the field is new: searching first spares the removal its copy of shared storage.
        if contains(name: name) { remove(name: name) }
        if let value { append(name: name, value: value) }
    }

    /// Removes every field named `name` (any case).
    public mutating func remove(name: String) { fields.removeAll { Self.sameName($0.name, name) } }

    /// The first value of `name` (any case), if present.
    public subscript(name: String) -> String? { first(name: name) }

    /// The first value of `name` (any case), if present.
    public func first(name: String) -> String? {
        // By index, not through an iterator: each field is read in place, and only the value returned is retained.
        for index in fields.indices where Self.sameName(fields[index].name, name) { return fields[index].value }
        return nil
    }

    /// Every value of `name` (any case), in order.
    public func values(name: String) -> [String] {
        // By index, as `first(name:)`: `filter` handed each field to its closure, retaining both strings.
        var values: [String] = []
        for index in fields.indices where Self.sameName(fields[index].name, name) { values.append(fields[index].value) }
        return values
    }

    /// True when some field is named `name` (any case).
    public func contains(name: String) -> Bool {
        fields.indices.contains { Self.sameName(fields[$0].name, name) }
    }

    /// Whether two field names are the same: equal bytes, or the same ASCII
    /// letter in either case. Concrete, so that a caller in another module
    /// (the Fiber API's cache reads half a dozen fields a response) gets the
    /// comparison specialized for `String` rather than the generic one.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        // Lengths first (free for native strings): most fields are not the one asked for.
        guard a.utf8.count == b.utf8.count else { return false }
        // Contiguous bytes rather than the generic walk over two UTF-8 views, which cost
        // more than the rest of a lookup; a native or small string is contiguous already.
        let compared = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where !sameNameByte(x[i], y[i]) { return false }
                return true
            }
        }
        return compared.flatMap { $0 } ?? a.equalsIgnoringASCIICase(b)
    }

    /// True when a comma-separated value of `name` contains `token` (any case): `Connection: keep-alive, Upgrade`.
    public func containsToken(_ token: String, in name: String) -> Bool {
        guard !token.isEmpty else { return false }  // no list holds an empty token
        // In place (the transport asks this of every response's `Connection`): no array of values.
        for index in fields.indices where Self.sameName(fields[index].name, name) {
            let value = fields[index].value
            let found = FieldList.forEachElement(of: value) { !FieldList.element($0, is: token) }.map { !$0 }
                ?? value.split(separator: ",").contains { $0.trimmingSpaces().equalsIgnoringASCIICase(token) }
            if found { return true }
        }
        return false
    }

    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// The first field that may not be sent: a name that is not an RFC 9110
    /// token, or a value with a control byte (CR and LF above all: header injection).
    package func firstInvalidField() -> Field? {
        // Indexed, so that the fields are read in place rather than each copied for a closure.
        for index in fields.indices where !Self.isToken(fields[index].name) || !Self.isValidValue(fields[index].value) {
            return fields[index]
        }
        return nil
    }

    /// Whether `name` may be sent as a field name: an RFC 9110 token.
    package static func isToken(_ name: String) -> Bool {
        !name.isEmpty && allBytes(of: name, satisfy: isTokenByte)
    }

    /// Whether `value` may be sent as a field value: no control byte but a tab (RFC 9110
    /// §5.5 allows visible characters, spaces, tabs and bytes from 0x80 up). CR, LF and
    /// NUL would let a value inject fields; the others no server should have to read.
    package static func isValidValue(_ value: String) -> Bool {
        allBytes(of: value) { $0 >= 0x20 ? $0 != 0x7F : $0 == 0x09 }
    }

    /// An RFC 9110 `tchar`: a letter, a digit or one of ``!#$%&'*+-.^_`|~``, as bits of two
    /// masks (bytes 0–63, 64–127): every request's fields are checked before they are sent.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        let mask: UInt64 = byte < 64 ? 0x03FF_6CFA_0000_0000 : byte < 128 ? 0x57FF_FFFF_C7FF_FFFE : 0
        return mask >> (byte & 63) & 1 == 1
    }

    /// Whether every byte of `text` passes `test`: over its contiguous bytes, which a native or
    /// small string has; walking the UTF-8 view byte by byte is much slower.
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }
}

/// The rule for one byte of two names: equal, or the same ASCII letter in either case
/// (never other bytes that differ only in bit 5, such as `@` and `` ` ``).
/// (Inlinable, as `equalsIgnoringASCIICase` is, which calls it.)
@inlinable
package func sameNameByte(_ x: UInt8, _ y: UInt8) -> Bool {
    x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
}

extension StringProtocol {
    /// True when both texts have the same bytes, ASCII letters compared in either case.
    /// Inlinable, so that a caller in another module (the cache's directive names) gets
    /// it specialized: called generically across modules it cost ten times the work.
    @inlinable
    package func equalsIgnoringASCIICase<Other: StringProtocol>(_ other: Other) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy(sameNameByte)
    }

    func trimmingSpaces() -> Substring {
        let s = Substring(self)
        let start = s.firstIndex { $0 != " " && $0 != "\t" } ?? s.endIndex
        let end = s.lastIndex { $0 != " " && $0 != "\t" }.map { s.index(after: $0) } ?? start
        return s[start..<Swift.max(start, end)]
    }
}
