import Crypto
import Foundation

/// The W3C Trace Context `traceparent` header (version 00) that Fiber sends
/// when no swift-distributed-tracing instrument is installed:
/// `00-<trace-id: 32 hex>-<parent-id: 16 hex>-00`. The flags are `00`, not
/// sampled: Fiber records no span of its own for a backend, so it does not tell
/// the server that the caller sampled the trace (see `TracePropagation`).
enum TraceParent {
    static let headerName = "traceparent"

    /// The header value for Fiber's trace ID and a span ID. A trace ID that is a
    /// UUID (the default) maps to its 32 hex digits; any other string to the
    /// first 16 bytes of its SHA-256, so that one trace ID always gives one W3C ID.
    static func value(traceID: String, spanID: String) -> String {
        var value = ""
        value.reserveCapacity(55)  // "00-" 32 "-" 16 "-00": one allocation
        value += "00-"
        value += w3cTraceID(traceID)
        value += "-"
        value += spanID
        value += "-00"
        return value
    }

    /// The header value for Fiber's trace ID and a new random span ID, written
    /// straight into the one string it makes when the trace ID is a UUID (the
    /// default); `value(traceID:spanID:)` otherwise.
    static func valueWithNewSpan(traceID: String) -> String {
        let span = RandomID.nonZero()
        var traceID = traceID
        let written: String? = traceID.withUTF8 { bytes in
            guard isUUIDShaped(bytes) else { return nil }
            return String(unsafeUninitializedCapacity: 55) { out in
                out[0] = UInt8(ascii: "0"); out[1] = UInt8(ascii: "0"); out[2] = UInt8(ascii: "-")
                copyDigits(of: bytes, into: out, at: 3)
                out[35] = UInt8(ascii: "-")
                RandomID.writeHex(span, into: out, at: 36)
                out[52] = UInt8(ascii: "-"); out[53] = UInt8(ascii: "0"); out[54] = UInt8(ascii: "0")
                return 55
            }
        }
        return written ?? value(traceID: traceID, spanID: RandomID.hex(span))
    }

    /// The trace ID of a version-00 `traceparent` value (lower-case, as W3C
    /// requires), or nil when the value is not one or its trace ID is all zeros.
    static func traceID(in value: String) -> String? {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        // Over bytes: `Character.isHexDigit` also accepts fullwidth digits, which W3C's hex is not.
        guard parts.count >= 4, parts[0].utf8.count == 2, parts[0] != "ff", parts[1].utf8.count == 32, parts[2].utf8.count == 16,
              parts[1].utf8.allSatisfy({ isHexDigit($0) && !(0x41...0x46).contains($0) }), parts[1].contains(where: { $0 != "0" })
        else { return nil }
        return String(parts[1])
    }

    static func w3cTraceID(_ traceID: String) -> String {
        if let hex = hexDigits(of: traceID) { return hex }
        let hex = traceID.lowercased().filter { $0 != "-" }
        if hex.utf8.count == 32, hex.utf8.allSatisfy(isHexDigit), hex.contains(where: { $0 != "0" }) { return hex }
        return SHA256.hash(data: Data(traceID.utf8)).prefix(16).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// The 32 ASCII hex digits of `traceID`, lower-cased, when it has exactly that
    /// many besides dashes and not all are zero (a UUID); else nil, and the general
    /// rule above decides. Reads bytes: for ASCII text it agrees with that rule.
    static func hexDigits(of traceID: String) -> String? {
        var traceID = traceID
        return traceID.withUTF8 { bytes -> String? in
            guard isUUIDShaped(bytes) else { return nil }
            return String(unsafeUninitializedCapacity: 32) { out in
                copyDigits(of: bytes, into: out, at: 0)
                return 32
            }
        }
    }

    /// Writes the hex digits of a UUID-shaped trace ID, lower-cased and without its dashes, from `start`.
    private static func copyDigits(of bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var position = start
        for byte in bytes where byte != UInt8(ascii: "-") {
            out[position] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") ? byte | 0x20 : byte
            position += 1
        }
    }

    /// Exactly 32 ASCII hex digits besides dashes, not all zero.
    private static func isUUIDShaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var digits = 0
        var nonZero = false
        for byte in bytes where byte != UInt8(ascii: "-") {
            guard isHexDigit(byte), digits < 32 else { return false }
            digits += 1
            nonZero = nonZero || byte != UInt8(ascii: "0")
        }
        return digits == 32 && nonZero
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
