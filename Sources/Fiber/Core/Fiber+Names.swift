import FiberRuntime

// Every public type of the module, reachable as `Fiber.Name`.
//
// A file that imports Fiber beside NIO, AsyncHTTPClient or swift-distributed-tracing
// sees two `HTTPHeaders`, `HTTPMethod` or `Span`; and since the class `Fiber` hides
// the module `Fiber`, `Fiber.Span` names a member of the class, not the module's type.
// These members make that spelling work. The runtime's types a `Fiber` user meets
// (configuration, TLS, pool statistics) are here too, so `import Fiber` alone
// reaches them.

extension Fiber {
    /// The runtime HTTP client's settings, as `Configuration.http` holds them.
    public typealias HTTPConfiguration = FiberRuntime.HTTPClient.Configuration
    /// TLS settings: trust roots, verification, versions, pins, client identity.
    public typealias TLSConfiguration = FiberRuntime.TLSConfiguration
    /// The HTTP version a response came over (`FiberRuntime.HTTPVersion`).
    public typealias HTTPVersion = FiberRuntime.HTTPVersion
    /// Which HTTP versions a client speaks (`FiberRuntime.HTTPVersionPolicy`).
    public typealias HTTPVersionPolicy = FiberRuntime.HTTPVersionPolicy
    /// How HTTP/2 connections run (`FiberRuntime.HTTP2Configuration`).
    public typealias HTTP2Configuration = FiberRuntime.HTTP2Configuration
    /// A certificate or public-key pin (`TLSConfiguration.pins`).
    public typealias CertificatePin = FiberRuntime.CertificatePin
    /// Which redirects are followed (`HTTPConfiguration.redirects`).
    public typealias RedirectPolicy = FiberRuntime.RedirectPolicy
    /// Socket options and the connect timeout (`HTTPConfiguration.socket`).
    public typealias SocketOptions = FiberRuntime.SocketOptions
    /// The runtime's event loops.
    public typealias EventLoopGroup = FiberRuntime.EventLoopGroup
    /// Counts of a client's connections and of the requests waiting for one.
    public typealias ConnectionPoolStatistics = FiberRuntime.ConnectionPoolStatistics
    /// The same counts for one origin.
    public typealias ConnectionPoolOriginStatistics = FiberRuntime.ConnectionPoolOriginStatistics
    /// A configuration value that cannot work, naming the setting.
    public typealias ConfigurationError = FiberRuntime.HTTPClient.ConfigurationError
    /// The runtime client's failures, inside `FiberError.networkError`.
    public typealias HTTPClientError = FiberRuntime.HTTPClientError
    /// A TLS failure (a refused certificate, a pin mismatch), inside `HTTPClientError`.
    public typealias TLSError = FiberRuntime.TLSError
    /// A socket failure (refused, reset, DNS, connect timeout), inside `HTTPClientError`.
    public typealias TransportError = FiberRuntime.TransportError
    /// `ConnectionMonitor`, spelled so that it cannot clash.
    public typealias ConnectionMonitor = FiberRuntime.ConnectionMonitor
    /// `HTTPHeader`, spelled so that it cannot clash.
    public typealias HTTPHeader = FiberRuntime.HTTPHeaders.Field
    /// `HTTPHeaders`, spelled so that it cannot clash.
    public typealias HTTPHeaders = FiberRuntime.HTTPHeaders
    /// `HTTPRequestBody`, spelled so that it cannot clash.
    public typealias HTTPRequestBody = FiberRuntime.HTTPRequestBody
    /// Whether and through which proxy requests go (`HTTPConfiguration.proxy`).
    public typealias ProxyConfiguration = FiberRuntime.ProxyConfiguration
    /// One proxy: HTTP or SOCKS5, where it listens, its credentials.
    public typealias ProxyServer = FiberRuntime.ProxyServer
    /// A proxy's user name and password, never printed.
    public typealias ProxyCredentials = FiberRuntime.ProxyCredentials
    /// The proxies `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` name.
    public typealias ProxyEnvironment = FiberRuntime.ProxyEnvironment
    /// The hosts that bypass a proxy (a `NO_PROXY` value).
    public typealias NoProxyList = FiberRuntime.NoProxyList
    /// A proxy that would not carry a request, inside `HTTPClientError`.
    public typealias ProxyFailure = FiberRuntime.ProxyFailure
    /// What keeps cookies for the runtime's client (`CookieJar` is one), spelled so that it cannot clash.
    public typealias HTTPCookieHandler = FiberRuntime.HTTPCookieHandler
}

// The module's own types need a module selector to be named from inside the
// class (`Span` there would be the member itself); Swift 6.3 has them.
#if compiler(>=6.3)
extension Fiber {
    /// `AESGCMEncryptionProvider`, spelled so that it cannot clash.
    public typealias AESGCMEncryptionProvider = Fiber::AESGCMEncryptionProvider
    /// `AnyInterceptor`, spelled so that it cannot clash.
    public typealias AnyInterceptor = Fiber::AnyInterceptor
    /// `AuthInterceptor`, spelled so that it cannot clash.
    public typealias AuthInterceptor = Fiber::AuthInterceptor
    /// `AuthSessionMissing`, spelled so that it cannot clash.
    public typealias AuthSessionMissing = Fiber::AuthSessionMissing
    /// `Backoff`, spelled so that it cannot clash.
    public typealias Backoff = Fiber::Backoff
    /// `BodyTooLarge`, spelled so that it cannot clash.
    public typealias BodyTooLarge = Fiber::BodyTooLarge
    /// `CacheControl`, spelled so that it cannot clash.
    public typealias CacheControl = Fiber::CacheControl
    /// `CacheFreshness`, spelled so that it cannot clash.
    public typealias CacheFreshness = Fiber::CacheFreshness
    /// `CacheFreshnessState`, spelled so that it cannot clash.
    public typealias CacheFreshnessState = Fiber::CacheFreshnessState
    /// `CacheInterceptor`, spelled so that it cannot clash.
    public typealias CacheInterceptor = Fiber::CacheInterceptor
    /// `CachePolicy`, spelled so that it cannot clash.
    public typealias CachePolicy = Fiber::CachePolicy
    /// `CacheRecord`, spelled so that it cannot clash.
    public typealias CacheRecord = Fiber::CacheRecord
    /// `CacheStorage`, spelled so that it cannot clash.
    public typealias CacheStorage = Fiber::CacheStorage
    /// `CacheStorageError`, spelled so that it cannot clash.
    public typealias CacheStorageError = Fiber::CacheStorageError
    /// `Cookie`, spelled so that it cannot clash.
    public typealias Cookie = Fiber::Cookie
    /// `CookieJar`, spelled so that it cannot clash.
    public typealias CookieJar = Fiber::CookieJar
    /// `CookieStore`, spelled so that it cannot clash.
    public typealias CookieStore = Fiber::CookieStore
    /// `CurlCommand`, spelled so that it cannot clash.
    public typealias CurlCommand = Fiber::CurlCommand
    /// `DataResponseSerializer`, spelled so that it cannot clash.
    public typealias DataResponseSerializer = Fiber::DataResponseSerializer
    /// `DecodableResponseSerializer`, spelled so that it cannot clash.
    public typealias DecodableResponseSerializer = Fiber::DecodableResponseSerializer
    /// `DeduplicationInterceptor`, spelled so that it cannot clash.
    public typealias DeduplicationInterceptor = Fiber::DeduplicationInterceptor
    /// `DiskCacheLimits`, spelled so that it cannot clash.
    public typealias DiskCacheLimits = Fiber::DiskCacheLimits
    /// `DiskCacheStorage`, spelled so that it cannot clash.
    public typealias DiskCacheStorage = Fiber::DiskCacheStorage
    /// `DownloadResumeState`, spelled so that it cannot clash.
    public typealias DownloadResumeState = Fiber::DownloadResumeState
    /// `DownloadTask`, spelled so that it cannot clash.
    public typealias DownloadTask = Fiber::DownloadTask
    /// `DownloadedFile`, spelled so that it cannot clash.
    public typealias DownloadedFile = Fiber::DownloadedFile
    /// `Empty`, spelled so that it cannot clash.
    public typealias Empty = Fiber::Empty
    /// `EmptyResponseBody`, spelled so that it cannot clash.
    public typealias EmptyResponseBody = Fiber::EmptyResponseBody
    /// `EncryptedFileSessionStore`, spelled so that it cannot clash.
    public typealias EncryptedFileSessionStore = Fiber::EncryptedFileSessionStore
    /// `EncryptionInterceptor`, spelled so that it cannot clash.
    public typealias EncryptionInterceptor = Fiber::EncryptionInterceptor
    /// `EncryptionProvider`, spelled so that it cannot clash.
    public typealias EncryptionProvider = Fiber::EncryptionProvider
    /// `Endpoint`, spelled so that it cannot clash.
    public typealias Endpoint = Fiber::Endpoint
    /// `ExponentialBackoff`, spelled so that it cannot clash.
    public typealias ExponentialBackoff = Fiber::ExponentialBackoff
    /// `FormURLEncoding`, spelled so that it cannot clash.
    public typealias FormURLEncoding = Fiber::FormURLEncoding
    /// `HTTPCacheRules`, spelled so that it cannot clash.
    public typealias HTTPCacheRules = Fiber::HTTPCacheRules
    /// `HTTPMethod`, spelled so that it cannot clash.
    public typealias HTTPMethod = Fiber::HTTPMethod
    /// `HTTPTransport`, spelled so that it cannot clash.
    public typealias HTTPTransport = Fiber::HTTPTransport
    /// `InMemoryMetricsCollector`, spelled so that it cannot clash.
    public typealias InMemoryMetricsCollector = Fiber::InMemoryMetricsCollector
    /// `InMemorySessionStore`, spelled so that it cannot clash.
    public typealias InMemorySessionStore = Fiber::InMemorySessionStore
    /// `Interceptor`, spelled so that it cannot clash.
    public typealias Interceptor = Fiber::Interceptor
    /// `InterceptorNext`, spelled so that it cannot clash.
    public typealias InterceptorNext = Fiber::InterceptorNext
    /// `LogPrivacy`, spelled so that it cannot clash.
    public typealias LogPrivacy = Fiber::LogPrivacy
    /// `LogPrivacyPolicy`, spelled so that it cannot clash.
    public typealias LogPrivacyPolicy = Fiber::LogPrivacyPolicy
    /// `LoggingInterceptor`, spelled so that it cannot clash.
    public typealias LoggingInterceptor = Fiber::LoggingInterceptor
    /// `MemoryCacheStorage`, spelled so that it cannot clash.
    public typealias MemoryCacheStorage = Fiber::MemoryCacheStorage
    /// `MetricsCollector`, spelled so that it cannot clash.
    public typealias MetricsCollector = Fiber::MetricsCollector
    /// `MetricsInterceptor`, spelled so that it cannot clash.
    public typealias MetricsInterceptor = Fiber::MetricsInterceptor
    /// `MultipartForm`, spelled so that it cannot clash.
    public typealias MultipartForm = Fiber::MultipartForm
    /// `NetworkLogger`, spelled so that it cannot clash.
    public typealias NetworkLogger = Fiber::NetworkLogger
    /// `NetworkRequest`, spelled so that it cannot clash.
    public typealias NetworkRequest = Fiber::NetworkRequest
    /// `NetworkResponse`, spelled so that it cannot clash.
    public typealias NetworkResponse = Fiber::NetworkResponse
    /// `NetworkingResponse`, spelled so that it cannot clash.
    public typealias NetworkingResponse = Fiber::NetworkingResponse
    /// `OfflineError`, spelled so that it cannot clash.
    public typealias OfflineError = Fiber::OfflineError
    /// `PrintFiberLogger`, spelled so that it cannot clash.
    public typealias PrintFiberLogger = Fiber::PrintFiberLogger
    /// `RateLimitError`, spelled so that it cannot clash.
    public typealias RateLimitError = Fiber::RateLimitError
    /// `RateLimitInterceptor`, spelled so that it cannot clash.
    public typealias RateLimitInterceptor = Fiber::RateLimitInterceptor
    /// `RequestChain`, spelled so that it cannot clash.
    public typealias RequestChain = Fiber::RequestChain
    /// `RequestMetrics`, spelled so that it cannot clash.
    public typealias RequestMetrics = Fiber::RequestMetrics
    /// `ResponseSerializer`, spelled so that it cannot clash.
    public typealias ResponseSerializer = Fiber::ResponseSerializer
    /// `RetryInterceptor`, spelled so that it cannot clash.
    public typealias RetryInterceptor = Fiber::RetryInterceptor
    /// `RetryPolicy`, spelled so that it cannot clash.
    public typealias RetryPolicy = Fiber::RetryPolicy
    /// `RetryResult`, spelled so that it cannot clash.
    public typealias RetryResult = Fiber::RetryResult
    /// `RetryRule`, spelled so that it cannot clash.
    public typealias RetryRule = Fiber::RetryRule
    /// `RetryStrategy`, spelled so that it cannot clash.
    public typealias RetryStrategy = Fiber::RetryStrategy
    /// `Session`, spelled so that it cannot clash.
    public typealias Session = Fiber::Session
    /// `SessionProvider`, spelled so that it cannot clash.
    public typealias SessionProvider = Fiber::SessionProvider
    /// `SessionStore`, spelled so that it cannot clash.
    public typealias SessionStore = Fiber::SessionStore
    /// `SessionStoreError`, spelled so that it cannot clash.
    public typealias SessionStoreError = Fiber::SessionStoreError
    /// `Span`, spelled so that it cannot clash.
    public typealias Span = Fiber::Span
    /// `StatusCodeType`, spelled so that it cannot clash.
    public typealias StatusCodeType = Fiber::StatusCodeType
    /// `StringResponseSerializer`, spelled so that it cannot clash.
    public typealias StringResponseSerializer = Fiber::StringResponseSerializer
    /// `SwiftLogFiberLogger`, spelled so that it cannot clash.
    public typealias SwiftLogFiberLogger = Fiber::SwiftLogFiberLogger
    /// `SwiftMetricsCollector`, spelled so that it cannot clash.
    public typealias SwiftMetricsCollector = Fiber::SwiftMetricsCollector
    /// `TraceContext`, spelled so that it cannot clash.
    public typealias TraceContext = Fiber::TraceContext
    /// `TraceExporter`, spelled so that it cannot clash.
    public typealias TraceExporter = Fiber::TraceExporter
    /// `TransferFailure`, spelled so that it cannot clash.
    public typealias TransferFailure = Fiber::TransferFailure
    /// `TransferProgress`, spelled so that it cannot clash.
    public typealias TransferProgress = Fiber::TransferProgress
    /// `TransportRequest`, spelled so that it cannot clash.
    public typealias TransportRequest = Fiber::TransportRequest
    /// `TransportResponse`, spelled so that it cannot clash.
    public typealias TransportResponse = Fiber::TransportResponse
    /// `URLFormItem`, spelled so that it cannot clash.
    public typealias URLFormItem = Fiber::URLFormItem
    /// `UnacceptableContentType`, spelled so that it cannot clash.
    public typealias UnacceptableContentType = Fiber::UnacceptableContentType
    /// `VoidRequest`, spelled so that it cannot clash.
    public typealias VoidRequest = Fiber::VoidRequest
    /// `VoidResponseSerializer`, spelled so that it cannot clash.
    public typealias VoidResponseSerializer = Fiber::VoidResponseSerializer
    /// `ConnectionPoolGauges`, spelled so that it cannot clash.
    public typealias ConnectionPoolGauges = Fiber::ConnectionPoolGauges
    /// `HTTPTypesConversionError`, spelled so that it cannot clash.
    public typealias HTTPTypesConversionError = Fiber::HTTPTypesConversionError
    /// `ClosingTransport`, spelled so that it cannot clash.
    public typealias ClosingTransport = Fiber::ClosingTransport
    /// `ShutdownError`, spelled so that it cannot clash.
    public typealias ShutdownError = Fiber::ShutdownError
}
#endif
