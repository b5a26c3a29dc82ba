import FiberRuntime
import Foundation

extension FiberError: LocalizedError {
    /// One sentence for people: the status a server answered, the cause of a
    /// network error in its own words (`TLS: the certificate of example.com
    /// (CN=example.com) expired on 2026-01-01 00:00 UTC (https://example.com/)`),
    /// the key a decoding missed, …
    public var errorDescription: String? {
        switch self {
        case .httpError(let status, _, let response):
            let phrase = HTTPStatusText.phrase(for: status)
            return "the server answered \(status)\(phrase.isEmpty ? "" : " \(phrase)") to \(response.request.httpMethod) \(response.request.location.text)"
        case .decodingError(let error, let data):
            return "the response body (\(data.count) bytes) did not decode: \(Self.sentence(of: error))"
        case .networkError(let error):
            return Self.sentence(of: error)
        case .timeout:
            return "the request timed out"
        case .cancelled:
            return "the request was cancelled"
        case .interceptor(let name, let error):
            return "the interceptor \"\(name)\" failed: \(Self.sentence(of: error))"
        case .invalidURL(let url):
            return "\"\(url)\" is not an absolute http or https URL"
        case .encodingError(let error):
            return "the request body could not be encoded: \(Self.sentence(of: error))"
        }
    }

    /// What `error` says in one line: its own sentence when it has one.
    static func sentence(of error: any Error) -> String {
        let text: String = switch error {
        case let error as DecodingError: decodingSentence(error)
        case let error as EncodingError: encodingSentence(error)
        case let error as LocalizedError: error.errorDescription ?? "\(error)"
        default: "\(error)"
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func decodingSentence(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "no value for the key \"\(key.stringValue)\" at \(path(context.codingPath))"
        case .valueNotFound(let type, let context): "no \(type) value at \(path(context.codingPath))"
        case .typeMismatch(let type, let context): "the value at \(path(context.codingPath)) is not \(type)"
        case .dataCorrupted(let context): "\(context.debugDescription) (at \(path(context.codingPath)))"
        @unknown default: "\(error)"
        }
    }

    private static func encodingSentence(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(let value, let context): "\(value) at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }

    /// `user.items[2].id`, or "the top level".
    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the top level" }
        return keys.enumerated().map { index, key in
            key.intValue.map { "[\($0)]" } ?? (index == 0 ? key.stringValue : ".\(key.stringValue)")
        }.joined()
    }
}
