import Foundation

/// A request ready for the wire: its serialized head and its body, with any file already open.
struct PreparedRequest: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case data(Data)
        /// Read as it is sent (streams, files, parts), `length` bytes when known.
        case streamed(RequestBodyChunks, length: Int?)

        /// The length of a body in memory; nil for one read as it is sent.
        var lengthInMemory: Int? {
            switch self {
            case .bytes(let bytes): bytes.count
            case .data(let data): data.count
            case .streamed: nil
            }
        }
    }

    let method: String
    let target: HTTPTarget
    let isIdempotent: Bool
    /// The head, checked (once, before any connection is asked for); written as
    /// bytes by an HTTP/1.1 connection, framed from its parts by an HTTP/2 one.
    let head: HTTP1RequestSerializer.CheckedHead
    /// The caller's fields, for HTTP/2 (which frames them itself).
    var headers: HTTPHeaders { head.headers }
    /// The `Accept-Encoding` the client adds when the caller set none.
    var acceptEncoding: String? { head.acceptEncoding }
    /// The body's length when known.
    let bodyLength: Int?
    let body: Body?
    /// The body as given, which says whether it may be sent again.
    let source: HTTPRequestBody?
    let uploadProgress: (@Sendable (Int, Int?) -> Void)?
    let downloadProgress: (@Sendable (Int, Int?) -> Void)?

    /// Whether a body read once has begun to be read: the request cannot be sent again.
    var bodyIsSpent: Bool { source?.isSpent ?? false }

    /// For error messages only (built when needed).
    var url: String { target.description }
}
