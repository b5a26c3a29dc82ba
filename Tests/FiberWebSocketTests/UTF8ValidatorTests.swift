import FiberWebSocket
import Testing

@Suite("Incremental UTF-8")
struct UTF8ValidatorTests {
    @Test(arguments: [
        "", "hello", "κόσμε", "\u{10FFFF}", "\u{FFFF}", "\u{7F}\u{80}\u{7FF}\u{800}", "😀 emoji",
    ])
    func acceptsValidTextSplitAnywhere(text: String) {
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var v = UTF8Validator()
            let first = v.validate(bytes[..<split])
            let second = v.validate(bytes[split...])
            #expect(first && second)
            #expect(v.isComplete)
        }
    }

    @Test(arguments: [
        [0xC0, 0x80] as [UInt8],            // overlong NUL
        [0xE0, 0x80, 0x80],                 // overlong
        [0xED, 0xA0, 0x80],                 // surrogate U+D800
        [0xF4, 0x90, 0x80, 0x80],           // above U+10FFFF
        [0xF5], [0xFF], [0x80],             // never valid / lone continuation
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
    ])
    func rejectsInvalidSequences(bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
    }

    @Test func failsFastAtTheFirstBadByteBeforeTheMessageEnds() {
        var v = UTF8Validator()
        let start = v.validate([0xCE, 0xBA, 0xE1, 0xBD, 0xB9])
        let bad = v.validate([0xF4, 0x90])   // fails here, with more to come
        #expect(start && !bad)
    }

    @Test func aTruncatedCharacterIsIncomplete() {
        var v = UTF8Validator()
        let ok = v.validate([0xE2, 0x82])
        #expect(ok && !v.isComplete)
    }
}
