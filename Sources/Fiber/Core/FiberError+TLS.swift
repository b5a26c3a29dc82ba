import FiberRuntime

extension FiberError {
    /// The TLS failure under a `.networkError`, if that is what it is: a
    /// refused certificate, a pin mismatch (with the host), a handshake the
    /// server refused, a connection cut without `close_notify`.
    public var tlsError: TLSError? {
        guard case .networkError(let underlying) = self else { return nil }
        switch underlying {
        case let error as HTTPClientError: return error.tls
        case let error as TransportError: return error.tls
        case let error as TLSError: return error
        default: return nil
        }
    }
}
