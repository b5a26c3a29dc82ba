/// The HTTP version a response came over.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.1 (and HTTP/1.0 responses, which the client reads as 1.1 would).
    case http1_1
    /// HTTP/2, over TLS (ALPN `h2`) or in cleartext with prior knowledge (h2c).
    case http2

    /// "HTTP/1.1" or "HTTP/2".
    public var description: String {
        switch self {
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        }
    }
}

/// Which HTTP versions a client may speak to an origin.
public enum HTTPVersionPolicy: Sendable, Hashable {
    /// Over TLS, offer `h2` then `http/1.1` by ALPN and speak what the server
    /// picks; in cleartext, HTTP/1.1. The default.
    case automatic
    /// HTTP/1.1 only: ALPN offers `http/1.1` alone.
    case http1Only
    /// HTTP/2 only: h2c with prior knowledge for `http://` (the connection
    /// preface at once, no upgrade), ALPN `h2` alone for `https://` (a server
    /// that does not pick it fails the handshake's negotiation with `.http2`).
    case http2PriorKnowledge
}
