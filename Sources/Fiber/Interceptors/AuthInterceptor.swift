import FiberRuntime

/// Puts a token on every request and, when a response says the token is no
/// longer good (401 by default), refreshes it once and replays the request.
///
/// Concurrent requests that get a 401 share one refresh: the first starts it,
/// the others wait for it, and a request that used a token older than the
/// last refresh is replayed with the new token without refreshing again.
///
/// ```swift
/// let auth = AuthInterceptor(
///     tokenProvider: { await tokenStore.accessToken },
///     tokenRefresher: { try await tokenStore.refresh() }
/// )
/// ```
public final class AuthInterceptor: Interceptor, InlineInterceptor {
    public let name = "auth"
    private let tokenProvider: @Sendable () async -> String?
    private let tokenRefresher: (@Sendable () async throws -> Void)?
    private let headerName: String
    private let headerPrefix: String
    private let isUnauthorized: @Sendable (FiberResponse) -> Bool
    /// Whether the token should be refreshed before it is used (a session near its expiry).
    private let needsRefresh: (@Sendable () -> Bool)?
    private let refreshes: RefreshGate
    /// The last token and the header value made of it: a token serves many requests, and
    /// joining it to the prefix for each cost a string allocation a request.
    private let lastValue = Locked<(token: String, value: String)?>(nil)

    /// - Parameters:
    ///   - tokenProvider: the current token (nil: send the request without one).
    ///   - tokenRefresher: gets a new token so that `tokenProvider` returns it (a `refresh()`
    ///     that also returns the token works; mark it `@discardableResult` to silence the unused result)
    ///     (nil: unauthorized responses are returned as they are).
    ///   - headerName: the header that carries the token.
    ///   - headerPrefix: written before the token (`"Bearer "`; `""` for API keys).
    ///   - isUnauthorized: which responses mean the token must be refreshed.
    public init(
        tokenProvider: @escaping @Sendable () async -> String?,
        tokenRefresher: (@Sendable () async throws -> Void)? = nil,
        headerName: String = "Authorization",
        headerPrefix: String = "Bearer ",
        isUnauthorized: @escaping @Sendable (FiberResponse) -> Bool = { $0.statusCode == 401 }
    ) {
        self.tokenProvider = tokenProvider
        self.tokenRefresher = tokenRefresher
        self.headerName = headerName
        self.headerPrefix = headerPrefix
        self.isUnauthorized = isUnauthorized
        self.needsRefresh = nil
        self.refreshes = RefreshGate()
    }

    /// Tokens from the session of `userID` in `sessions`: its access token on every
    /// request; `refresh` renews the session (and the new one is saved) when it is
    /// within five minutes of expiry (`Session.shouldRefresh`), before the request goes,
    /// and when a response says the token is no longer good. Concurrent requests share
    /// one refresh either way.
    ///
    /// A request made with no session for `userID` goes without a token; a refresh
    /// without one fails with `FiberError.interceptor(name: "auth", underlying:)` carrying
    /// `AuthSessionMissing`; a session that cannot be saved, `SessionStoreError`.
    public init(
        sessions: SessionProvider, userID: String,
        refresh: @escaping @Sendable (Session) async throws -> Session,
        headerName: String = "Authorization", headerPrefix: String = "Bearer ",
        isUnauthorized: @escaping @Sendable (FiberResponse) -> Bool = { $0.statusCode == 401 }
    ) {
        self.tokenProvider = { sessions.getSession(for: userID)?.accessToken }
        self.tokenRefresher = {
            // The stored session even when expired: its refresh token may still be good.
            guard let current = sessions.storedSession(for: userID) else { throw AuthSessionMissing(userID: userID) }
            try sessions.setSession(try await refresh(current))
        }
        self.headerName = headerName
        self.headerPrefix = headerPrefix
        self.isUnauthorized = isUnauthorized
        self.needsRefresh = { sessions.storedSession(for: userID)?.shouldRefresh ?? false }
        self.refreshes = RefreshGate()
    }

    /// How many refreshes have completed (for monitoring and tests).
    public var refreshCount: Int { refreshes.generation }

    /// - Throws: what `next` throws; `FiberError.interceptor(name: "auth", …)`
    ///   with the refresher's error when the refresh fails.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        // Without a refresher the generation is never read: no lock on the way out.
        let generation = tokenRefresher == nil ? 0 : refreshes.generation
        if let needsRefresh, let tokenRefresher, needsRefresh() {
            do {
                try await refreshes.refresh(after: generation, using: tokenRefresher)
            } catch {
                throw FiberError.interceptor(name: name, underlying: error)
            }
        }
        let response = try await next(await authorized(request))
        guard let tokenRefresher, isUnauthorized(response) else { return response }
        do {
            try await refreshes.refresh(after: generation, using: tokenRefresher)
        } catch {
            throw FiberError.interceptor(name: name, underlying: error)
        }
        return try await next(await authorized(request))
    }

    @inline(__always)  // one async frame fewer on every request
    nonisolated(nonsending) private func authorized(_ request: FiberRequest) async -> FiberRequest {
        guard let token = await tokenProvider() else { return request }
        return request.header(headerName, headerValue(for: token))
    }

    /// `headerPrefix + token`, made once per token.
    private func headerValue(for token: String) -> String {
        if headerPrefix.isEmpty { return token }
        // Byte for byte: `==` takes canonically equivalent text (é and e + ◌́) as equal,
        // and the header must carry the very token the provider gave.
        if let last = lastValue.withLock({ $0 }), last.token.hasSameBytes(as: token) { return last.value }
        let value = headerPrefix + token
        lastValue.withLock { $0 = (token, value) }
        return value
    }
}

/// One refresh at a time, shared by every request that needs it.
///
/// `generation` counts completed refreshes. A request remembers the generation
/// its token came from; on a 401 it refreshes only if no refresh completed
/// since, and joins the one in flight if there is one: the flight is keyed by
/// the generation it refreshes from.
final class RefreshGate: Sendable {
    private let completed = Locked(0)
    private let flights = SingleFlight<Int, Void>()

    var generation: Int { completed.withLock { $0 } }

    /// Returns once a refresh newer than `generation` has completed.
    /// - Throws: the refresher's error (every waiter of that refresh gets it).
    func refresh(after generation: Int, using refresher: @escaping @Sendable () async throws -> Void) async throws {
        guard self.generation <= generation else { return }
        try await flights.run(generation) { [completed] in
            // A caller that read `generation` just before the last flight for it
            // landed starts a new one: it finds the refresh done and returns.
            guard completed.withLock({ $0 <= generation }) else { return }
            try await refresher()
            completed.withLock { $0 = max($0, generation + 1) }
        }
    }
}

extension String {
    /// True when both strings hold the same UTF-8 bytes. Over contiguous storage (a native
    /// or small string is), since it runs on every request: a generic walk over two
    /// `UTF8View`s is several times slower.
    fileprivate func hasSameBytes(as other: String) -> Bool {
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                for i in 0..<count where a[i] != b[i] { return false }
                return true
            }
        }
        return compared.flatMap { $0 } ?? utf8.elementsEqual(other.utf8)
    }
}

/// A refresh was needed and the provider holds no session for the user.
public struct AuthSessionMissing: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user whose session is missing.
    public let userID: String

    public var description: String { "no session for user \(userID)" }
}
