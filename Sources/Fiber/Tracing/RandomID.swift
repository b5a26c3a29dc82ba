import Synchronization

/// Random identifiers written as hex digits straight into their string.
///
/// `UUID().uuidString` costs about 5 µs on Linux (Foundation opens and reads
/// `/dev/urandom` for every UUID), a tenth of a whole request over a local
/// connection. The system's generator is cheaper but still a `getrandom`
/// system call per draw, three per request (trace ID and span ID), about 7 %
/// of a request's CPU through the pipeline. So IDs come from SplitMix64 over
/// one atomic counter whose start and step the system's generator picks once
/// per process: no system call, no lock, and no two draws of a process alike
/// (the mix is a bijection of the counter). Trace and span IDs must be unique
/// and unguessable enough not to collide across services, not secret; nothing
/// in Fiber uses them as keys or nonces.
@usableFromInline  // for the default of `FiberDefaults.traceIDGenerator`
enum RandomID {
    private static let state: Atomic<UInt64> = {
        var system = SystemRandomNumberGenerator()
        return Atomic(system.next())
    }()
    /// An odd step (the golden ratio's, with random high bits): the counter visits every value once.
    private static let step: UInt64 = {
        var system = SystemRandomNumberGenerator()
        return (system.next() as UInt64) << 32 | 0x7F4A_7C15
    }()

    /// The next 64 random-looking bits.
    static func next() -> UInt64 {
        var z = state.wrappingAdd(step, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
    static func spanID() -> String {
        var value = next()
        while value == 0 { value = next() }
        return hex(value)
    }

    /// `value` as 16 lower-case hex digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 { out[i] = hexDigit(UInt8(truncatingIfNeeded: value >> (60 - 4 * i)), uppercase: false) }
            return 16
        }
    }

    /// The hex digit of the low four bits of `nibble`.
    static func hexDigit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        let value = nibble & 0xF
        return value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }
}
