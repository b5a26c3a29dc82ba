import FiberRuntime
import Foundation

extension ShownResponse {
    /// `--json-output`: one JSON object (keys sorted) with the status, the
    /// reason, the headers as `{"name", "value"}` objects in the order they came
    /// (a name may repeat), the body's size and the timing phases in
    /// milliseconds (`null` for a phase the request did not go through, and
    /// `timing` itself `null` when the answer did not come from the network).
    func jsonReport() -> String {
        var object: [String: Any] = [
            "status": status,
            "reason": reason,
            "headers": headers.map { ["name": $0.name, "value": $0.value] },
            "bodyBytes": body.count,
        ]
        if let timing {
            func ms(_ duration: Duration?) -> Any { duration.map { $0.seconds * 1000 } ?? NSNull() }
            object["timing"] = [
                "dnsMs": ms(timing.dns), "connectMs": ms(timing.connect), "tlsMs": ms(timing.tls),
                "poolWaitMs": ms(timing.poolWait), "requestWrittenMs": ms(timing.requestWritten),
                "firstByteMs": ms(timing.firstByte), "totalMs": ms(timing.total), "reusedConnection": timing.reusedConnection,
            ] as [String: Any]
        } else {
            object["timing"] = NSNull()
        }
        // Strings, numbers, booleans and null only: serialization cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
