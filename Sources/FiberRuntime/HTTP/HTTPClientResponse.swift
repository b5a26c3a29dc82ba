/// A response whose body was read whole (up to the configured limit).
public struct HTTPClientResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reason: String
    /// The header fields, as received (`Content-Encoding` stays even when the body was inflated).
    public var headers: HTTPHeaders
    /// The body, inflated if it was compressed.
    public var body: [UInt8]
    /// Where the time went.
    public var timing: RequestTiming
    /// Where the answer came from, after redirects.
    public var target: HTTPTarget
    /// The URL that answered, after redirects.
    public var url: String { target.description }
    /// How many redirects were followed.
    public var redirectCount: Int
    /// The HTTP version the response came over.
    public var version: HTTPVersion = .http1_1
    /// The trailer fields sent after the body (a chunked HTTP/1.1 body's, an
    /// HTTP/2 stream's last HEADERS), without those a trailer may not carry;
    /// nil when there were none.
    public var trailers: HTTPHeaders? = nil
}

/// A response whose body is streamed as it arrives.
public struct HTTPClientStreamingResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reason: String
    /// The header fields, as received.
    public var headers: HTTPHeaders
    /// The body; iterate it to the end (or drop it) so the connection can be reused or closed.
    public var body: HTTPResponseBody
    /// Timing up to the response head.
    public var timing: RequestTiming
    /// Where the answer came from, after redirects.
    public var target: HTTPTarget
    /// The URL that answered, after redirects.
    public var url: String { target.description }
    /// How many redirects were followed.
    public var redirectCount: Int
    /// The HTTP version the response came over.
    public var version: HTTPVersion = .http1_1

    /// The trailer fields that followed the body, once `body` has been read to
    /// its end; nil when there were none (see `HTTPResponseBody.trailers()`).
    ///
    /// - Throws: `HTTPClientError`: the body's failure, or `.trailersNotReady`
    ///   while the body has not been read to its end.
    public func trailers() async throws(HTTPClientError) -> HTTPHeaders? {
        try await body.trailers()
    }
}
