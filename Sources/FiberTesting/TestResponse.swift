import FiberRuntime

/// Produces a streamed body: writes chunks through the writer, sleeping
/// between them if it likes. Throwing ends the connection mid-body.
public typealias TestBodyProducer = @Sendable (TestBodyWriter) async throws -> Void

/// What a route answers: a status, headers and a body, plus (see
/// `TestResponse+Faults.swift`) how to deliver it — at once, late, slowly,
/// cut short — or which fault to commit instead.
///
/// The server adds the framing headers the body needs (`Content-Length` or
/// `Transfer-Encoding: chunked`) after the response's own headers, unless the
/// response already has a field of that name, and a `Connection` header when
/// it will close the connection (or keep an HTTP/1.0 one open). Nothing else
/// is added: no `Date`, no `Server`, so tests can compare exact bytes.
public struct TestResponse: Sendable {
    /// How the body goes on the wire.
    public enum Body: Sendable {
        /// A body of known length, sent with `Content-Length` (the default form).
        case bytes([UInt8])
        /// A body sent with `Transfer-Encoding: chunked`, one chunk per element
        /// (empty elements are skipped: an empty chunk would end the body), then
        /// the last chunk with `trailers`.
        case chunked([[UInt8]], trailers: HTTPHeaders = HTTPHeaders())
        /// A body produced while it is sent, chunked; each `write` of the
        /// producer is one chunk. Never called for HEAD requests.
        case stream(TestBodyProducer, trailers: HTTPHeaders = HTTPHeaders())
        /// A body with no length, ended by closing the connection.
        case closeDelimited([UInt8])
    }

    /// The status code.
    public var status: Int
    /// The reason phrase; nil uses the standard one (`OK`, `Not Found`, …).
    public var reason: String?
    /// The header fields, sent in order before the ones the server adds.
    public var headers: HTTPHeaders
    /// The body and its framing.
    public var body: Body

    /// What the server does: respond, send raw bytes, or commit a fault.
    var action: Action = .respond
    /// How the bytes go out: after a delay, in drips, cut short.
    var delivery = Delivery()

    /// A response from its parts; see the static factories for the usual ones.
    public init(status: Int = 200, reason: String? = nil, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    // MARK: Factories

    /// `200 OK` with `text` as a `text/plain; charset=utf-8` body.
    public static func ok(_ text: String = "") -> TestResponse {
        .text(text)
    }

    /// `text` as a `text/plain; charset=utf-8` body with the given status.
    public static func text(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .bytes(Array(text.utf8)))
    }

    /// `json` (already encoded) as an `application/json` body.
    public static func json(_ json: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(Array(json.utf8)))
    }

    /// `bytes` as the body, with `Content-Length`.
    public static func bytes(_ bytes: [UInt8], status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> TestResponse {
        TestResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    /// A response with no body (`Content-Length: 0`, or nothing for 1xx, 204 and 304).
    public static func status(_ status: Int, reason: String? = nil) -> TestResponse {
        TestResponse(status: status, reason: reason)
    }

    /// A redirect to `location` (any string, sent as the `Location` header), with no body.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: ["Location": location])
    }

    /// `chunks` sent with `Transfer-Encoding: chunked`, then `trailers`.
    public static func chunked(
        _ chunks: [[UInt8]], trailers: HTTPHeaders = HTTPHeaders(), status: Int = 200, headers: HTTPHeaders = HTTPHeaders()
    ) -> TestResponse {
        TestResponse(status: status, headers: headers, body: .chunked(chunks, trailers: trailers))
    }

    /// Text chunks sent with `Transfer-Encoding: chunked`, then `trailers`.
    public static func chunked(
        _ chunks: [String], trailers: HTTPHeaders = HTTPHeaders(), status: Int = 200, headers: HTTPHeaders = HTTPHeaders()
    ) -> TestResponse {
        .chunked(chunks.map { Array($0.utf8) }, trailers: trailers, status: status, headers: headers)
    }

    /// Text chunks sent chunked, `interval` apart (the first at once): a body that trickles.
    public static func chunked(
        _ chunks: [String], every interval: Duration, trailers: HTTPHeaders = HTTPHeaders(),
        status: Int = 200, headers: HTTPHeaders = HTTPHeaders()
    ) -> TestResponse {
        .stream(status: status, headers: headers, trailers: trailers) { writer in
            for (i, chunk) in chunks.enumerated() {
                if i > 0 { try await writer.sleep(for: interval) }
                try await writer.write(chunk)
            }
        }
    }

    /// A chunked body produced by `producer` while it is sent.
    public static func stream(
        status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), trailers: HTTPHeaders = HTTPHeaders(),
        _ producer: @escaping TestBodyProducer
    ) -> TestResponse {
        TestResponse(status: status, headers: headers, body: .stream(producer, trailers: trailers))
    }

    /// A chunked body with one chunk per element of `sequence`; an error from
    /// the sequence ends the connection mid-body.
    public static func stream<S: AsyncSequence & Sendable>(
        _ sequence: S, status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), trailers: HTTPHeaders = HTTPHeaders()
    ) -> TestResponse where S.Element == [UInt8] {
        .stream(status: status, headers: headers, trailers: trailers) { writer in
            for try await chunk in sequence { try await writer.write(chunk) }
        }
    }

    /// `bytes` with no length, the end marked by closing the connection.
    public static func closeDelimited(_ bytes: [UInt8], status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> TestResponse {
        TestResponse(status: status, headers: headers, body: .closeDelimited(bytes))
    }

    /// Text with no length, the end marked by closing the connection.
    public static func closeDelimited(_ text: String, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> TestResponse {
        .closeDelimited(Array(text.utf8), status: status, headers: headers)
    }

    /// `404 Not Found` with the body `not found`, what unmatched requests get.
    public static var notFound: TestResponse { .text("not found", status: 404) }

    // MARK: Modifiers

    /// This response with one more header field (appended; others of the same name stay).
    public func withHeader(_ name: String, _ value: String) -> TestResponse {
        var copy = self
        copy.headers.append(name: name, value: value)
        return copy
    }
}
