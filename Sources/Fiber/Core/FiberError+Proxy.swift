import FiberRuntime

extension FiberError {
    /// The proxy's failure under a `.networkError`, if that is what it is: the
    /// proxy unreachable, a refused tunnel (`status` 403, a SOCKS5 reply code),
    /// credentials wanted or refused (407), a malformed reply, a silent proxy.
    public var proxyFailure: ProxyFailure? {
        guard case .networkError(let underlying) = self else { return nil }
        switch underlying {
        case let error as HTTPClientError: return error.proxy
        case let error as ProxyFailure: return error
        default: return nil
        }
    }
}
