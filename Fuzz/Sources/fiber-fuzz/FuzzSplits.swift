/// Deterministic split points for "the same bytes fed in pieces give the same
/// result": drawn from a generator seeded by the input's own hash, so a crash
/// artifact replays the same splits.
struct FuzzSplits: Sequence {
    let input: [UInt8]

    /// Piece lengths covering `input`: mostly 1 to 7 bytes (crossing every
    /// field boundary), now and then a longer run, so long inputs stay quick.
    func makeIterator() -> AnyIterator<Range<Int>> {
        var generator = SplitMix64(seed: FuzzSplits.fnv1a(input))
        var offset = 0
        let input = input
        return AnyIterator {
            guard offset < input.count else { return nil }
            let draw = generator.next()
            let length = draw % 8 == 0 ? Int(draw >> 8 % 512) + 1 : Int(draw >> 8 % 7) + 1
            let end = Swift.min(input.count, offset + length)
            defer { offset = end }
            return offset..<end
        }
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// A small, seedable generator (SplitMix64), so that splits depend on the input only.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
