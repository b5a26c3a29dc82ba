extension Sequence<UInt8> {
    /// The bytes as lower-case hex digits, two a byte (a digest's usual spelling).
    var lowercaseHex: String {
        var digits: [UInt8] = []
        digits.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            digits.append(RandomID.hexDigit(byte >> 4, uppercase: false))
            digits.append(RandomID.hexDigit(byte, uppercase: false))
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
