@testable import FiberWebSocket

/// The incremental UTF-8 validator against the standard library's.
///
/// Rules: `isValid` agrees with `String(validating:as:)`; fed in pieces it
/// gives the same answer, and a prefix it accepts is a prefix of valid UTF-8.
enum UTF8ValidatorFuzz {
    static let target = FuzzTarget(name: "utf8-validator", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let reference = String(validating: input, as: UTF8.self) != nil
        FuzzCheck.require(UTF8Validator.isValid(input) == reference, "isValid says \(!reference) for \(input), the standard library \(reference)")
        var validator = UTF8Validator()
        var accepted = true
        for range in FuzzSplits(input: input) where accepted {
            accepted = validator.validate(input[range])
        }
        FuzzCheck.require((accepted && validator.isComplete) == reference, "in pieces: \(accepted && validator.isComplete), whole: \(reference)")
        // A validator that accepted everything but is mid-character: some ending completes it.
        if accepted, !validator.isComplete {
            FuzzCheck.require(!reference, "mid-character yet valid")
        }
    }

    static func seeds() -> [[UInt8]] {
        [
            Array("plain ASCII".utf8),
            Array("é ü ß ∑ € 𝄞 😀 中文".utf8),
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x98], [0xFF], [0xEF, 0xBF, 0xBD],
        ]
    }
}
