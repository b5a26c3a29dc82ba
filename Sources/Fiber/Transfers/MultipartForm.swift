import FiberRuntime
import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, sent part
/// after part as the request goes out. Files are read from disk as they are
/// sent and streams as they yield: nothing is spooled to a temporary file and
/// the whole body is never in memory. The body has a `Content-Length` when
/// every part's size is known when the request starts (text, data, files, and
/// streams given a length), and is chunked otherwise.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("john_doe", withName: "username")
/// form.append(pngData, withName: "avatar", fileName: "avatar.png", mimeType: "image/png")
/// form.appendFile(atPath: "/tmp/video.mov", withName: "video", mimeType: "video/quicktime")
/// let response = try await api.send(api.request(.post, "/profile").multipartBody(form))
/// ```
///
/// Names and file names are written as browsers write them (the HTML
/// standard's form encoding): UTF-8 as it is, with `"`, CR and LF as `%22`,
/// `%0D` and `%0A`; a type's CR and LF are written the same way, so that no
/// value ends its header line. The `filename*` parameter is not used (RFC 7578 §4.2).
///
/// The boundary is random (`FiberForm` and 32 letters and digits) unless
/// given; it is checked against every part held in memory, and a random one
/// that occurs there is drawn again. A form is replayable (a retry or
/// redirect sends it again) unless it holds a stream read once.
public struct MultipartForm: Sendable {
    /// A boundary given to a form cannot be used: it occurs in one of the form's
    /// parts in memory, or is not 1 to 70 characters of RFC 2046's set.
    public struct BoundaryError: Error, Sendable, CustomStringConvertible {
        /// The boundary.
        public let boundary: String
        /// The field whose content or name holds it; nil when the boundary itself is not valid.
        public let field: String?
        public var description: String {
            if let field { "the multipart boundary \(boundary) occurs in the field \(field)" }
            else { "the multipart boundary \(boundary) is not 1 to 70 characters of RFC 2046's set" }
        }
    }

    private enum Content: Sendable {
        case bytes([UInt8])
        case data(Data)
        case file(path: String)
        case stream(HTTPRequestBody)
    }

    private struct Part: Sendable {
        var name: String
        var fileName: String?
        var mimeType: String?
        var content: Content
    }

    private var parts: [Part] = []
    private let givenBoundary: String?

    /// An empty form; `boundary` (nil: a random one) must be 1 to 70 characters of
    /// RFC 2046's set, else `encoded()` throws.
    public init(boundary: String? = nil) {
        givenBoundary = boundary
    }

    /// The number of parts.
    public var count: Int { parts.count }

    /// Appends a text field.
    public mutating func append(_ value: String, withName name: String) {
        parts.append(Part(name: name, fileName: nil, mimeType: nil, content: .bytes(Array(value.utf8))))
    }

    /// Appends bytes in memory: a file's content when `fileName` is given, else a field.
    public mutating func append(_ data: Data, withName name: String, fileName: String? = nil, mimeType: String? = nil) {
        parts.append(Part(name: name, fileName: fileName, mimeType: mimeType ?? (fileName == nil ? nil : Self.octetStream),
                          content: .data(data)))
    }

    /// Appends the file at `path`, read from disk as it is sent; `fileName` defaults
    /// to the path's last component. A file missing when the request starts, or
    /// changing size while it is sent, fails the request (`.requestBody`, naming it).
    public mutating func appendFile(atPath path: String, withName name: String, fileName: String? = nil,
                                    mimeType: String = "application/octet-stream") {
        let shown = fileName ?? (path.split(separator: "/").last.map(String.init) ?? path)
        parts.append(Part(name: name, fileName: shown, mimeType: mimeType, content: .file(path: path)))
    }

    /// Appends a streamed body as a file part (a stream's length, when it has one,
    /// keeps the form's `Content-Length`).
    public mutating func append(_ stream: HTTPRequestBody, withName name: String, fileName: String,
                                mimeType: String = "application/octet-stream") {
        parts.append(Part(name: name, fileName: fileName, mimeType: mimeType, content: .stream(stream)))
    }

    static let octetStream = "application/octet-stream"

    /// The body and its `Content-Type` (with the boundary).
    ///
    /// - Throws: `BoundaryError` when a boundary given to the form occurs in a part in
    ///   memory, or is not 1 to 70 characters of RFC 2046's set.
    public func encoded() throws -> (body: HTTPRequestBody, contentType: String) {
        let boundary = try chooseBoundary()
        var pieces: [HTTPRequestBody] = []
        var text: [UInt8] = []  // framing and small fields, gathered between the larger pieces
        for part in parts {
            text += Array("--\(boundary)\r\n".utf8)
            text += Self.dispositionLine(part)
            if let mimeType = part.mimeType {
                text += Array("Content-Type: ".utf8) + Self.escaped(mimeType, quotes: false) + Array("\r\n".utf8)
            }
            text += Array("\r\n".utf8)
            switch part.content {
            case .bytes(let bytes):
                text += bytes
            case .data(let data):
                pieces.append(.bytes(text))
                text = []
                pieces.append(.data(data))
            case .file(let path):
                pieces.append(.bytes(text))
                text = []
                pieces.append(.file(path: path))
            case .stream(let stream):
                pieces.append(.bytes(text))
                text = []
                pieces.append(stream)
            }
            text += Array("\r\n".utf8)
        }
        text += Array("--\(boundary)--\r\n".utf8)
        pieces.append(.bytes(text))
        return (.concatenating(pieces), "multipart/form-data; boundary=\(boundary)")
    }

    private func chooseBoundary() throws(BoundaryError) -> String {
        if let givenBoundary {
            guard Self.isValidBoundary(givenBoundary) else { throw BoundaryError(boundary: givenBoundary, field: nil) }
            if let field = firstField(containing: givenBoundary) { throw BoundaryError(boundary: givenBoundary, field: field) }
            return givenBoundary
        }
        while true {
            let boundary = Self.randomBoundary()
            if firstField(containing: boundary) == nil { return boundary }
        }
    }

    /// The name of the first part in memory whose content or names hold `--boundary`.
    private func firstField(containing boundary: String) -> String? {
        let delimiter = Array("--\(boundary)".utf8)
        for part in parts {
            let found: Bool = switch part.content {
            case .bytes(let bytes): Self.contains(bytes, delimiter)
            case .data(let data): data.withUnsafeBytes { Self.contains($0, delimiter) }
            case .file, .stream: false
            }
            if found || Self.contains(Self.dispositionLine(part), delimiter) { return part.name }
        }
        return nil
    }

    private static func contains<C: Collection<UInt8>>(_ haystack: C, _ needle: [UInt8]) -> Bool
        where C.Index == Int {
        guard haystack.count >= needle.count, let first = needle.first else { return false }
        var i = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while i <= last {
            if haystack[i] == first, haystack[i ..< i + needle.count].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    private static let boundaryAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    private static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let tail = (0..<32).map { _ in boundaryAlphabet[Int(generator.next(upperBound: UInt(boundaryAlphabet.count)))] }
        return "FiberForm" + String(decoding: tail, as: UTF8.self)
    }

    /// RFC 2046 §5.1.1: 1 to 70 of its characters, not ending in a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ".utf8)
        let bytes = Array(boundary.utf8)
        return (1...70).contains(bytes.count) && bytes.allSatisfy(allowed.contains) && bytes.last != UInt8(ascii: " ")
    }

    private static func dispositionLine(_ part: Part) -> [UInt8] {
        var line = Array("Content-Disposition: form-data; name=\"".utf8) + escaped(part.name) + [UInt8(ascii: "\"")]
        if let fileName = part.fileName {
            line += Array("; filename=\"".utf8) + escaped(fileName) + [UInt8(ascii: "\"")]
        }
        return line + Array("\r\n".utf8)
    }

    /// The HTML standard's escape for names in a multipart form: `"`, CR, LF as `%22`, `%0D`, `%0A`
    /// (a type keeps its quotes, which its parameters may need: only a line break would end its line).
    private static func escaped(_ text: String, quotes: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\"") where quotes: out += Array("%22".utf8)
            case 0x0D: out += Array("%0D".utf8)
            case 0x0A: out += Array("%0A".utf8)
            default: out.append(byte)
            }
        }
        return out
    }
}
