import Synchronization

/// Random identifiers written as hex digits straight into their string.
///
/// Every request draws a trace ID and a span ID, so a draw must cost little next
/// to the request: `UUID()` on Linux opens and reads `/dev/urandom` each time, and
/// the system's generator is a `getrandom` system call per draw. So a draw is a keyed hash
/// (SipHash, through `Hasher`) of one atomic counter and a 128-bit secret that
/// the system's generator picks once per process: no system call and no lock.
/// A server that sees IDs learns nothing that predicts the next ones, which a
/// plain mix of the counter (SplitMix64, say) would give away, since it can be
/// inverted. Two draws collide with probability 2⁻⁶⁴.
@usableFromInline  // for the default of `FiberDefaults.traceIDGenerator`
enum RandomID {
    private static let counter = Atomic<UInt64>(0)
    private static let secret: (UInt64, UInt64) = {
        var system = SystemRandomNumberGenerator()
        return (system.next(), system.next())
    }()

    /// The next 64 random bits.
    static func next() -> UInt64 {
        let n = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        // `Hasher` has its own per-process seed as well, unless SWIFT_DETERMINISTIC_HASHING is set;
        // the secret keeps the IDs unpredictable even then.
        var hasher = Hasher()
        hasher.combine(secret.0)
        hasher.combine(n)
        hasher.combine(secret.1)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }

    /// A random version 4 UUID in `UUID().uuidString`'s form: 122 random bits,
    /// upper-case hex, `8-4-4-4-12`.
    @usableFromInline
    static func uuidString() -> String {
        // Bytes 0–7 and 8–15, big-endian: the version nibble is the top of byte 6,
        // the variant (binary 10) the top of byte 8.
        let high = next() & ~0xF000 | 0x4000
        let low = next() & ~(0b11 << 62) | (0b10 << 62)
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                out[position] = hexDigit(UInt8(truncatingIfNeeded: word >> (60 - 4 * (nibble % 16))), uppercase: true)
                position += 1
            }
            return position
        }
    }

    /// A random, non-zero 64-bit ID as 16 lower-case hex digits (span IDs).
    static func spanID() -> String { hex(nonZero()) }

    /// The next 64 random bits that are not all zero (W3C span IDs may not be).
    static func nonZero() -> UInt64 {
        var value = next()
        while value == 0 { value = next() }
        return value
    }

    /// `value` as 16 lower-case hex digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { out in
            writeHex(value, into: out, at: 0)
            return 16
        }
    }

    /// Writes `value` as 16 lower-case hex digits, zero-padded, from `start`.
    static func writeHex(_ value: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for i in 0..<16 { out[start + i] = hexDigit(UInt8(truncatingIfNeeded: value >> (60 - 4 * i)), uppercase: false) }
    }

    /// The hex digit of the low four bits of `nibble`.
    static func hexDigit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        let value = nibble & 0xF
        return value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }
}
