import Crypto
import Foundation

/// The W3C Trace Context `traceparent` header (version 00) for a request:
/// `00-<trace-id: 32 hex>-<parent-id: 16 hex>-01`.
enum TraceParent {
    static let headerName = "traceparent"

    /// The header value for Fiber's trace ID and a span ID. A trace ID that is a
    /// UUID (the default) maps to its 32 hex digits; any other string to the
    /// first 16 bytes of its SHA-256, so that one trace ID always gives one W3C ID.
    static func value(traceID: String, spanID: String) -> String {
        "00-\(w3cTraceID(traceID))-\(spanID)-01"
    }

    static func w3cTraceID(_ traceID: String) -> String {
        let hex = traceID.lowercased().filter { $0 != "-" }
        if hex.count == 32, hex.allSatisfy(\.isHexDigit), hex.contains(where: { $0 != "0" }) { return hex }
        return SHA256.hash(data: Data(traceID.utf8)).prefix(16).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// A new random, non-zero 16-hex-digit span ID.
    static func newSpanID() -> String {
        String(UInt64.random(in: 1...UInt64.max), radix: 16).leftPadded(to: 16)
    }
}
