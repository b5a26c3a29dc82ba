import FiberRuntime
import Foundation

/// What one request changes of its client's behaviour: kept together behind one
/// reference, so that a request without any costs one empty field.
final class RequestOverrides: Sendable {
    /// Which interceptors run instead of the client's.
    enum Interceptors: Sendable {
        case replacing([any Interceptor])
        case adding([any Interceptor])
    }

    let retry: RetryStrategy?
    let interceptors: Interceptors?
    let cachePolicy: CachePolicy?
    let decoder: JSONDecoder?
    /// The proxy the transport uses instead of its own (`TransportRequest.proxy`).
    let proxy: ProxyConfiguration?

    init(retry: RetryStrategy? = nil, interceptors: Interceptors? = nil, cachePolicy: CachePolicy? = nil,
         decoder: JSONDecoder? = nil, proxy: ProxyConfiguration? = nil) {
        self.retry = retry
        self.interceptors = interceptors
        self.cachePolicy = cachePolicy
        self.decoder = decoder
        self.proxy = proxy
    }

    func with(retry: RetryStrategy?? = nil, interceptors: Interceptors?? = nil, cachePolicy: CachePolicy?? = nil,
              decoder: JSONDecoder?? = nil, proxy: ProxyConfiguration?? = nil) -> RequestOverrides {
        RequestOverrides(retry: retry ?? self.retry, interceptors: interceptors ?? self.interceptors,
                         cachePolicy: cachePolicy ?? self.cachePolicy, decoder: decoder ?? self.decoder,
                         proxy: proxy ?? self.proxy)
    }
}

extension FiberRequest {
    /// The same request retried as `strategy` says (`.none`: never), instead of as
    /// its client's `RetryInterceptor` would. A request with retries on a client
    /// without a `RetryInterceptor` gets one of its own, outermost.
    public func retry(_ strategy: RetryStrategy) -> FiberRequest {
        changing { $0.with(retry: .some(strategy)) }
    }

    /// The same request sent through `interceptors` (first outermost) instead of its
    /// client's; `[]` sends it through none.
    public func interceptors(_ interceptors: [any Interceptor]) -> FiberRequest {
        changing { $0.with(interceptors: .some(.replacing(interceptors))) }
    }

    /// The same request sent through its client's interceptors and then `interceptors`
    /// (inside them, nearest the transport).
    public func addingInterceptors(_ interceptors: [any Interceptor]) -> FiberRequest {
        changing { $0.with(interceptors: .some(.adding(interceptors))) }
    }

    /// The same request reading from and writing to the cache as `policy` says.
    public func cachePolicy(_ policy: CachePolicy) -> FiberRequest {
        changing { $0.with(cachePolicy: .some(policy)) }
    }

    /// The same request with its response decoded by `decoder` (`FiberResponse.decode`,
    /// the chain's `responseDecodable`, the completion methods) instead of the client's.
    public func decoder(_ decoder: JSONDecoder) -> FiberRequest {
        changing { $0.with(decoder: .some(decoder)) }
    }

    /// The retry strategy set with `retry(_:)`, if any.
    public var retryStrategy: RetryStrategy? { overrides?.retry }
    /// The cache policy set with `cachePolicy(_:)`, if any.
    public var cachePolicy: CachePolicy? { overrides?.cachePolicy }

    func changing(_ change: (RequestOverrides) -> RequestOverrides) -> FiberRequest {
        var copy = self
        copy.overrides = change(overrides ?? RequestOverrides())
        return copy
    }
}
