import FiberRuntime
import FiberTesting
import Foundation
import Synchronization

/// A collector-like receiver: FiberTesting's server on 127.0.0.1 taking OTLP/HTTP
/// JSON exports at `/v1/traces` and keeping the spans they carry.
final class OTLPReceiver: Sendable {
    /// A span as exported: its name, kind, IDs and attributes (values as text).
    struct ExportedSpan: Sendable {
        let name: String
        let kind: Int
        let traceID: String
        let spanID: String
        let parentSpanID: String
        let attributes: [String: String]
        let isError: Bool
    }

    let server: TestHTTPServer
    /// (`Mutex`: Fiber's `Locked` is internal to Fiber's package.)
    private let received = Mutex<[ExportedSpan]>([])

    var spans: [ExportedSpan] { received.withLock { $0 } }
    var endpoint: String { server.baseURL + "/v1/traces" }

    init(on loop: EventLoop) async throws {
        server = try await TestHTTPServer.start(on: loop)
        server.route("POST", "/v1/traces") { [weak self] request in
            let spans = Self.spans(inExport: Data(request.body))
            self?.received.withLock { $0 += spans }
            return TestResponse(status: 200, headers: ["Content-Type": "application/json"], body: .bytes(Array("{}".utf8)))
        }
    }

    /// The spans of an `ExportTraceServiceRequest` in OTLP's JSON encoding.
    static func spans(inExport body: Data) -> [ExportedSpan] {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        var spans: [ExportedSpan] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var attributes: [String: String] = [:]
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
                              let first = value.values.first else { continue }
                        attributes[key] = "\(first)"
                    }
                    let status = span["status"] as? [String: Any]
                    let code = status?["code"]
                    spans.append(ExportedSpan(
                        name: span["name"] as? String ?? "", kind: kind(span["kind"]),
                        traceID: hexID(span["traceId"]), spanID: hexID(span["spanId"]), parentSpanID: hexID(span["parentSpanId"]),
                        attributes: attributes,
                        isError: (code as? Int) == 2 || (code as? String) == "STATUS_CODE_ERROR"))
                }
            }
        }
        return spans
    }

    /// OTLP's span kind, as the number or the enum's name (3: client, 1: internal).
    private static func kind(_ value: Any?) -> Int {
        if let number = value as? Int { return number }
        switch value as? String {
        case "SPAN_KIND_INTERNAL": return 1
        case "SPAN_KIND_SERVER": return 2
        case "SPAN_KIND_CLIENT": return 3
        default: return 0
        }
    }

    /// An ID as lower-case hex: OTLP/JSON writes hex, a plain protobuf JSON mapping base64.
    private static func hexID(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
