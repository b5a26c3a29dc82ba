/// One redirect the client followed: the request that was answered with a
/// redirect, its status, where it led, and when it went out and was answered.
public struct RedirectHop: Sendable, Hashable {
    /// The method of the request that was redirected.
    public let method: String
    /// Its URL.
    public let url: String
    /// The redirect status (301, 302, 303, 307, 308).
    public let status: Int
    /// The URL of the request sent next.
    public let location: String
    /// When the redirected request started (the whole request's start for the first hop).
    public let started: ContinuousClock.Instant
    /// When its redirect was read and the next request was about to go.
    public let ended: ContinuousClock.Instant

    /// A hop as given.
    public init(method: String, url: String, status: Int, location: String,
                started: ContinuousClock.Instant, ended: ContinuousClock.Instant) {
        self.method = method; self.url = url; self.status = status; self.location = location
        self.started = started; self.ended = ended
    }
}
