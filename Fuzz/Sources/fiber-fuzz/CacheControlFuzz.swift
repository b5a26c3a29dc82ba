@testable import Fiber
@testable import FiberRuntime

/// `Cache-Control` and the comma-separated lists it is read with.
///
/// Rules: the byte reading (`init(ascii:)`) agrees with the text reading it
/// stands in for; `FieldList` splits and trims as `split(separator:)` and
/// trimming spaces and tabs do; directives written back from what was read
/// read the same.
enum CacheControlFuzz {
    static let target = FuzzTarget(name: "cache-control", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let value = String(decoding: input, as: UTF8.self)
        let control = CacheControl(value)
        if let ascii = CacheControl(ascii: value) {
            FuzzCheck.require(ascii == CacheControl.reading(value), "\(value): bytes read \(ascii), text read \(CacheControl.reading(value))")
        }
        checkFieldList(value)
        let written = write(control)
        FuzzCheck.require(CacheControl(written) == control, "\(value) read as \(control); written as \(written) it reads \(CacheControl(written))")
    }

    static func checkFieldList(_ value: String) {
        var elements: [[UInt8]] = []
        guard FieldList.forEachElement(of: value, { elements.append(Array($0)); return true }) != nil else {
            FuzzCheck.require(value.utf8.contains { $0 >= 0x80 }, "an ASCII value was not read as bytes")
            return
        }
        var expected = Array(value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { element in
            Array(element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
        }
        if value.utf8.last == UInt8(ascii: ",") || value.isEmpty { expected.removeLast() }
        FuzzCheck.require(elements == expected, "\(value): elements \(elements), expected \(expected)")
    }

    /// The value a server would send for `control`.
    static func write(_ control: CacheControl) -> String {
        var parts: [String] = []
        if let age = control.maxAge { parts.append("max-age=\(age)") }
        if let age = control.sharedMaxAge { parts.append("s-maxage=\"\(age)\"") }
        if control.noStore { parts.append("no-store") }
        if control.noCache { parts.append("No-Cache") }
        if control.mustRevalidate { parts.append("must-revalidate") }
        if control.isPrivate { parts.append("private") }
        if control.isPublic { parts.append("public") }
        if let seconds = control.staleWhileRevalidate { parts.append("stale-while-revalidate = \(seconds)") }
        return parts.joined(separator: ", ")
    }

    static func seeds() -> [[UInt8]] {
        [
            "max-age=60, must-revalidate", "no-store", "private, max-age=0, no-cache", "public, s-maxage=\"3600\"",
            "max-age=-5, stale-while-revalidate=30", "max-age=99999999999999999999", " ,, no-cache\t,", "max-age=1, max-age=2",
            "MAX-AGE = 10 ; foo", "no-cache=\"Set-Cookie, Vary\", proxy-revalidate", "max-age=\u{00e9}",
        ].map { Array($0.utf8) }
    }
}
