/// How one request is retried, whatever its client's `RetryInterceptor` says.
public enum RetryStrategy: Sendable {
    /// Never retried.
    case none
    /// Up to `count` retries, by the client's `RetryInterceptor` rules (statuses,
    /// methods, transient errors, `Retry-After`), or by the default rules when the
    /// client has no `RetryInterceptor`.
    case retry(count: Int)
    /// Up to `maxRetries` retries, as `policy` decides.
    case policy(any RetryPolicy, maxRetries: Int)

    /// The most retries the strategy allows.
    var maxRetries: Int {
        switch self {
        case .none: 0
        case .retry(let count): max(0, count)
        case .policy(_, let maxRetries): max(0, maxRetries)
        }
    }
}
