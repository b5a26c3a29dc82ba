import FiberRuntime
import Foundation

extension WebSocketError: LocalizedError {
    /// One sentence for people: a TLS failure in the TLS error's own words
    /// (`WebSocket TLS: the certificate of example.com (CN=example.com)
    /// expired on 2026-01-01 00:00 UTC`), else the kind, the message, the
    /// HTTP status of a refused upgrade and the socket error's sentence.
    public var errorDescription: String? {
        if kind == .tls, let transport, transport.tls != nil, let sentence = transport.errorDescription {
            return "WebSocket \(sentence)"
        }
        var text = "WebSocket \(kind): \(message)"
        if let status { text += " (HTTP \(status))" }
        if let sentence = transport?.errorDescription { text += ": \(sentence)" }
        return text
    }
}
