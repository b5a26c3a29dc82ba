import FiberRuntime
import Foundation
import HTTPTypes

extension FiberRequest {
    /// A request from swift-http-types' `request` and a body in memory (none if nil):
    /// its method, its URL (`scheme://authority` and `path`, the query included) and
    /// its header fields in order.
    ///
    /// A request without a scheme, an authority or a path (an `HTTPRequest` can lack
    /// them) makes `Fiber.send` throw `FiberError.invalidURL` with what it had, as
    /// `init(url:)` does for a string that is not an absolute URL.
    public init(_ request: HTTPRequest, body: Data? = nil) {
        self.init(url: Self.urlText(of: request))
        httpMethod = HTTPMethod(rawValue: request.method.rawValue)
        headers = HTTPHeaders(request.headerFields)
        self.body = body
    }

    /// A request from swift-http-types' `request` with `body` read as it is sent
    /// (a stream, a file, parts: see `body(_:contentType:)`); otherwise as `init(_:body:)`.
    public init(_ request: HTTPRequest, body: HTTPRequestBody) {
        self.init(request)
        bodyStream = body
    }

    /// The URL of an `HTTPRequest` as text: empty parts stay empty, so a request
    /// without an authority reads as a relative URL and is refused as one.
    private static func urlText(of request: HTTPRequest) -> String {
        guard let scheme = request.scheme, let authority = request.authority else { return request.path ?? "" }
        return scheme + "://" + authority + (request.path ?? "")
    }
}

extension HTTPRequest {
    /// swift-http-types' view of `request`: its method, the scheme, authority and
    /// path (with the query) of its URL, and its header fields in order. The body is
    /// not part of an `HTTPRequest`: it stays `request.body` or `request.bodyStream`.
    ///
    /// - Throws: `HTTPTypesConversionError`: `.invalidURL` for a request whose URL is
    ///   not absolute, `.invalidMethod` for a method that is not a token, and what
    ///   `HTTPFields(validating:)` throws for its header fields.
    public init(_ request: FiberRequest) throws(HTTPTypesConversionError) {
        if case .invalidURL(let text)? = request.buildError { throw HTTPTypesConversionError(.invalidURL, subject: text) }
        // The target the transport would send to: an absolute http(s) URL without user info.
        guard let target = request.location.target ?? (try? HTTPTarget(request.location.text)) else {
            throw HTTPTypesConversionError(.invalidURL, subject: request.location.text)
        }
        guard let method = HTTPRequest.Method(request.httpMethod.rawValue) else {
            throw HTTPTypesConversionError(.invalidMethod, subject: request.httpMethod.rawValue)
        }
        let fields = try HTTPFields(validating: request.headers)
        self.init(method: method, scheme: target.scheme, authority: target.hostHeader, path: target.pathAndQuery,
                  headerFields: fields)
    }
}
