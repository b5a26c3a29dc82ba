/// Strings cut from an input: the bytes between zero bytes, as UTF-8 (bad sequences repaired).
enum FuzzFields {
    static func strings(_ input: ArraySlice<UInt8>) -> [String] {
        input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Joins strings as `strings` cuts them.
    static func bytes(_ strings: [String]) -> [UInt8] {
        Array(strings.map { Array($0.utf8) }.joined(separator: [0]))
    }
}
