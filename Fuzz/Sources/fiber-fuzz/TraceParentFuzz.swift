@testable import Fiber

/// The `traceparent` header Fiber writes and reads.
///
/// Rules: for any trace ID, the value written is `00-<32 lower-case hex>-<16
/// lower-case hex>-00` and reads back as the W3C trace ID it was made from;
/// the UUID fast path agrees with the general rule; a value read from a peer
/// gives a 32-digit lower-case hex trace ID or none.
enum TraceParentFuzz {
    static let target = FuzzTarget(name: "traceparent", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        if let id = TraceParent.traceID(in: text) {
            FuzzCheck.require(isLowerHex(id, count: 32), "\(text) gave the trace ID \(id)")
        }
        let w3c = TraceParent.w3cTraceID(text)
        FuzzCheck.require(isLowerHex(w3c, count: 32), "trace ID \(text) maps to \(w3c)")
        if let fast = TraceParent.hexDigits(of: text) {
            let general = text.lowercased().filter { $0 != "-" }
            FuzzCheck.require(fast == general, "\(text): fast path \(fast), general rule \(general)")
        }
        for value in [TraceParent.value(traceID: text, spanID: "00f067aa0ba902b7"), TraceParent.valueWithNewSpan(traceID: text)] {
            let parts = value.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            FuzzCheck.require(value.utf8.count == 55 && parts.count == 4 && parts[0] == "00" && parts[3] == "00"
                              && isLowerHex(parts[1], count: 32) && isLowerHex(parts[2], count: 16), "trace ID \(text) wrote \(value)")
            FuzzCheck.require(TraceParent.traceID(in: value) == w3c, "\(value) reads as \(String(describing: TraceParent.traceID(in: value))), not \(w3c)")
        }
    }

    static func isLowerHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func seeds() -> [[UInt8]] {
        [
            "4bf92f35-77b3-4da6-a3ce-929d0e0e4736", "4BF92F3577B34DA6A3CE929D0E0E4736", "00000000-0000-0000-0000-000000000000",
            "my-trace", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra",
        ].map { Array($0.utf8) }
    }
}
