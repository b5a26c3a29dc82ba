import Foundation
@testable import Fiber
@testable import FiberRuntime

/// The `multipart/form-data` writer, against a reader written here.
///
/// Input: one options byte (bit 0: a boundary given, the first string), then
/// strings cut at zero bytes, three per part: a name, a file name (a field
/// when empty) and the content; a fourth, when the part is a file, its type.
///
/// Rules: the body reads back, with the boundary of its `Content-Type`, as
/// the same parts (names and file names as the HTML standard escapes them);
/// a given boundary that occurs in a part is refused, never written.
enum MultipartFormFuzz {
    static let target = FuzzTarget(name: "multipart-form", run: run, seeds: seeds)

    struct Part: Equatable {
        var name: String
        var fileName: String?
        var mimeType: String?
        var content: [UInt8]
    }

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        var strings = FuzzFields.strings(input.dropFirst())[...]
        let boundary = first & 1 == 0 ? nil : strings.popFirst()
        var form = MultipartForm(boundary: boundary)
        var parts: [Part] = []
        while strings.count >= 3 {
            let name = strings.removeFirst(), fileName = strings.removeFirst(), content = strings.removeFirst()
            if fileName.isEmpty {
                form.append(content, withName: name)
                parts.append(Part(name: escaped(name), fileName: nil, mimeType: nil, content: Array(content.utf8)))
            } else {
                let mimeType = strings.popFirst() ?? ""
                let type = mimeType.isEmpty ? nil : mimeType
                form.append(Data(content.utf8), withName: name, fileName: fileName, mimeType: type)
                parts.append(Part(name: escaped(name), fileName: escaped(fileName),
                                  mimeType: escaped(type ?? "application/octet-stream", quotes: false),
                                  content: Array(content.utf8)))
            }
        }
        let encoded: (body: HTTPRequestBody, contentType: String)
        do {
            encoded = try form.encoded()
        } catch {
            FuzzCheck.require(boundary != nil, "a form with a random boundary failed: \(error)")
            return
        }
        let prefix = "multipart/form-data; boundary="
        FuzzCheck.require(encoded.contentType.hasPrefix(prefix), "content type \(encoded.contentType)")
        let used = String(encoded.contentType.dropFirst(prefix.count))
        if let boundary { FuzzCheck.require(used == boundary, "boundary \(boundary) given, \(used) used") }
        let body = flatten(encoded.body)
        FuzzCheck.require(encoded.body.knownLength == body.count, "Content-Length \(String(describing: encoded.body.knownLength)) for \(body.count) bytes")
        let decoded = decode(body, boundary: used)
        FuzzCheck.require(decoded == parts, "\(parts) encoded with boundary \(used) decode as \(String(describing: decoded))")
    }

    /// The HTML standard's escape of names, as the form writes them: over bytes, since a
    /// quote followed by a combining mark is one `Character`.
    static func escaped(_ text: String, quotes: Bool = true) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\"") where quotes: out += Array("%22".utf8)
            case 0x0D: out += Array("%0D".utf8)
            case 0x0A: out += Array("%0A".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func flatten(_ body: HTTPRequestBody) -> [UInt8] {
        switch body.source {
        case .bytes(let bytes): bytes
        case .data(let data): Array(data)
        case .parts(let parts): parts.flatMap(flatten)
        case .stream, .file: FuzzCheck.fail("a form of bytes in memory made a stream or a file")
        }
    }

    /// RFC 7578 over RFC 2046: the parts between `--boundary` lines, each with
    /// its header lines, a blank line and its content. Nil when malformed.
    static func decode(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array("--\(boundary)".utf8)
        let close = delimiter + Array("--\r\n".utf8)
        if body == close { return [] }
        let separator = Array("\r\n".utf8) + delimiter
        guard body.starts(with: delimiter + Array("\r\n".utf8)), body.count >= close.count + 2,
              Array(body.suffix(close.count + 2)) == Array("\r\n".utf8) + close else { return nil }
        // The parts: between the first delimiter line and the closing one, split at CRLF--boundary CRLF.
        let inner = Array(body[(delimiter.count + 2)..<(body.count - close.count - 2)])
        var pieces: [[UInt8]] = []
        var start = 0, i = 0
        let between = separator + Array("\r\n".utf8)
        while i + between.count <= inner.count {
            if inner[i..<(i + between.count)].elementsEqual(between) {
                pieces.append(Array(inner[start..<i]))
                i += between.count
                start = i
            } else {
                i += 1
            }
        }
        pieces.append(Array(inner[start...]))
        return pieces.map(part).allSatisfy { $0 != nil } ? pieces.compactMap(part) : nil
    }

    /// One part's header lines and content, read over bytes (a name may start with a combining
    /// mark, which as text would join the quote before it).
    static func part(_ bytes: [UInt8]) -> Part? {
        let blank = Array("\r\n\r\n".utf8)
        guard bytes.count >= blank.count,
              let end = (0...(bytes.count - blank.count)).first(where: { bytes[$0...].starts(with: blank) }) else { return nil }
        let lines = Array(bytes[..<end]).split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }
        let disposition = Array("Content-Disposition: form-data; name=\"".utf8)
        guard let first = lines.first, first.starts(with: disposition) else { return nil }
        var rest = first.dropFirst(disposition.count)
        guard let quote = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let name = String(decoding: rest[..<quote], as: UTF8.self)
        rest = rest[(quote + 1)...]
        var fileName: String?
        if !rest.isEmpty {
            let fileMarker = Array("; filename=\"".utf8)
            guard rest.starts(with: fileMarker), rest.last == UInt8(ascii: "\""), rest.count > fileMarker.count else { return nil }
            fileName = String(decoding: rest.dropFirst(fileMarker.count).dropLast(), as: UTF8.self)
        }
        var mimeType: String?
        let typeMarker = Array("Content-Type: ".utf8)
        if lines.count == 2 {
            guard lines[1].starts(with: typeMarker) else { return nil }
            mimeType = String(decoding: lines[1].dropFirst(typeMarker.count), as: UTF8.self)
        } else if lines.count > 2 {
            return nil
        }
        return Part(name: name, fileName: fileName, mimeType: mimeType, content: Array(bytes[(end + blank.count)...]))
    }

    static func seeds() -> [[UInt8]] {
        [
            [0] + FuzzFields.bytes(["username", "", "john_doe", "avatar", "avatar.png", "\u{89}PNG\r\n", "image/png"]),
            [1] + FuzzFields.bytes(["----WebKitFormBoundary7MA4YWxkTrZu0gW", "a", "", "1", "b", "", "2"]),
            [0] + FuzzFields.bytes(["na\"me", "", "line\r\n--not-the-boundary\r\n", "f", "we\"ird\r\n.txt", "", ""]),
            [1] + FuzzFields.bytes(["x", "field", "", "--x inside"]),
            [0] + FuzzFields.bytes(["empty", "", ""]),
        ]
    }
}
