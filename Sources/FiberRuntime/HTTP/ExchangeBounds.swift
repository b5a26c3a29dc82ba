/// What bounds one exchange in time and in the interim responses it accepts,
/// worked out by the client from its configuration and the request's options.
struct ExchangeBounds: Sendable {
    /// Fail when no byte arrives for this long (nil: never).
    var readIdle: Duration?
    /// Fail when the final response head has not arrived this long after the
    /// request was sent whole (nil: never).
    var responseHead: Duration?
    /// The whole request's deadline, redirects and retries included (nil: none).
    var deadline: ContinuousClock.Instant?
    /// 1xx responses accepted before the final one.
    var maxInterimResponses: Int
}
