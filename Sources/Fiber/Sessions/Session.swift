import Foundation

/// One user's authentication state: who, the access token, the refresh token when
/// there is one, and when the access token expires. Printing a session never shows
/// its tokens.
public struct Session: Codable, Sendable, Equatable {
    /// Seconds before expiry from which `shouldRefresh` is true.
    public static let refreshMargin: TimeInterval = 300

    /// Whose session it is (the key it is stored under).
    public let userID: String
    /// The token sent with requests.
    public var accessToken: String
    /// The token that gets a new access token, when there is one.
    public var refreshToken: String?
    /// When the access token stops being good, when known.
    public var expiration: Date?

    /// A session from its parts.
    public init(userID: String, accessToken: String, refreshToken: String? = nil, expiration: Date? = nil) {
        self.userID = userID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiration = expiration
    }

    /// True once `expiration` has passed (never without one).
    public var isExpired: Bool { isExpired(at: Date()) }

    /// True when the access token expires within five minutes and a refresh token can renew it.
    public var shouldRefresh: Bool { shouldRefresh(at: Date()) }

    /// `isExpired` at `now`.
    public func isExpired(at now: Date) -> Bool {
        guard let expiration else { return false }
        return now >= expiration
    }

    /// `shouldRefresh` at `now`.
    public func shouldRefresh(at now: Date) -> Bool {
        guard let expiration, refreshToken != nil else { return false }
        return now.addingTimeInterval(Self.refreshMargin) >= expiration
    }
}

extension Session: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user and expiry; tokens as `<redacted>`.
    public var description: String {
        "Session(userID: \(userID), accessToken: <redacted>, refreshToken: \(refreshToken == nil ? "nil" : "<redacted>"), "
            + "expiration: \(expiration.map { "\($0)" } ?? "nil"))"
    }

    /// As `description`: a debug print shows no token either.
    public var debugDescription: String { description }

    /// Without the tokens, so that `dump` and test failures show none.
    public var customMirror: Mirror {
        Mirror(self, children: ["userID": userID, "accessToken": "<redacted>",
                                "refreshToken": refreshToken == nil ? "nil" : "<redacted>", "expiration": expiration as Any])
    }
}
