import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A file of `bytes` in a fresh temporary directory, removed with it by `body`'s end.
func withTemporaryFile<T>(_ bytes: [UInt8], name: String = "payload.bin",
                          _ body: (String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-upload-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent(name).path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw CocoaError(.fileWriteUnknown) }
    return try await body(path)
}

func sha256Hex<D: DataProtocol>(_ bytes: D) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

@Suite("Multipart forms")
struct MultipartFormTests {
    @Test func encodesFieldsAndFilesAsRFC7578Says() async throws {
        var form = MultipartForm(boundary: "XyZ")
        form.append("john_doe", withName: "username")
        form.append(Data([0, 1, 2]), withName: "avatar", fileName: "avatar.png", mimeType: "image/png")
        form.append(Data("plain".utf8), withName: "note")
        let (body, contentType) = try form.encoded()
        #expect(contentType == "multipart/form-data; boundary=XyZ")
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\njohn_doe\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"avatar.png\"\r\nContent-Type: image/png\r\n\r\n"
        var wire = Data(expected.utf8)
        wire += Data([0, 1, 2])
        wire += Data("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nplain\r\n--XyZ--\r\n".utf8)
        #expect(try await body.collected(upTo: 1 << 20) == wire)
        #expect(body.knownLength == wire.count)
        #expect(body.isReplayable)
    }

    @Test func namesAreEscapedAsBrowsersDo() async throws {
        var form = MultipartForm(boundary: "b")
        form.append(Data(), withName: "a\"b\r\nc", fileName: "naïve \"q\".txt")
        let text = String(decoding: try await form.encoded().body.collected(upTo: 1 << 20), as: UTF8.self)
        #expect(text.contains("name=\"a%22b%0D%0Ac\"; filename=\"naïve %22q%22.txt\""), "\(text)")
    }

    @Test func aRandomBoundaryIsFreshAndValid() throws {
        var form = MultipartForm()
        form.append("x", withName: "x")
        let first = try form.encoded().contentType
        let second = try form.encoded().contentType
        #expect(first != second)
        let boundary = String(first.dropFirst("multipart/form-data; boundary=".count))
        #expect(boundary.hasPrefix("FiberForm") && boundary.count == 41)
        #expect(boundary.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    @Test func aGivenBoundaryFoundInAPartIsRefused() async throws {
        var form = MultipartForm(boundary: "collide")
        form.append("before\r\n--collide\r\nafter", withName: "text")
        #expect(throws: MultipartForm.BoundaryError.self) { try form.encoded() }
        // Through a request: `send` throws `.encodingError` before anything is sent.
        let (fiber, mock) = mockFiber()
        await expectFiberError({ if case .encodingError(let e) = $0 { e is MultipartForm.BoundaryError } else { false } }) {
            try await fiber.post("/up", multipart: form)
        }
        #expect(mock.requests.isEmpty)
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends in space ", "no\"quote"])
    func anInvalidGivenBoundaryIsRefused(boundary: String) {
        var form = MultipartForm(boundary: boundary)
        form.append("x", withName: "x")
        #expect(throws: MultipartForm.BoundaryError.self) { try form.encoded() }
    }

    /// A stream read once makes the form one-shot; a stream made by a function keeps it replayable.
    @Test func replayableUnlessAPartIsReadOnce() throws {
        var replayable = MultipartForm()
        replayable.append(.stream(length: 3) { chunks(of: [1, 2, 3], size: 3) }, withName: "s", fileName: "s.bin")
        #expect(try replayable.encoded().body.isReplayable)
        var once = MultipartForm()
        once.append(.stream(once: chunks(of: [1], size: 1)), withName: "s", fileName: "s.bin")
        #expect(try once.encoded().body.isReplayable == false)
        #expect(try once.encoded().body.knownLength == nil)
    }

    /// Werkzeug reads every part back: text fields, data and files (a non-ASCII name
    /// among them), a streamed part; the body has a `Content-Length` when every size is known.
    @Test(.enabled(if: PythonFormServer.isAvailable, "python3 with werkzeug is needed (Scripts/setup installs it)"),
          .timeLimit(.minutes(1)))
    func werkzeugReadsEveryPart() async throws {
        let big = patternedBytes(3 * 1024 * 1024 + 17, seed: 3)
        let small = Data(patternedBytes(1000, seed: 9))
        try await withTemporaryFile(big, name: "big.bin") { path in
            try await PythonFormServer.with { fiber in
                for lengthKnown in [true, false] {
                    var form = MultipartForm()
                    form.append("john_doe", withName: "username")
                    form.append("κόσμε 😀", withName: "greeting")
                    form.append(small, withName: "avatar", fileName: "avatar.png", mimeType: "image/png")
                    form.appendFile(atPath: path, withName: "video", fileName: "vidéo 😀.bin")
                    let streamed = patternedBytes(200_000, seed: 5)
                    form.append(.stream(length: lengthKnown ? streamed.count : nil) { chunks(of: streamed, size: 7_000) },
                                withName: "log", fileName: "log.txt", mimeType: "text/plain")
                    let progress = ProgressRecorder()
                    let response = try await fiber.post("/multipart", multipart: form, progress: progress.record)
                    #expect(response.statusCode == 200, "\(response.text)")
                    let parsed = try response.decode(ParsedMultipart.self)
                    #expect(parsed.fields == [["username", "john_doe"], ["greeting", "κόσμε 😀"]])
                    #expect(parsed.files == [
                        .init(name: "avatar", filename: "avatar.png", content_type: "image/png", size: small.count, sha256: sha256Hex(small)),
                        .init(name: "video", filename: "vidéo 😀.bin", content_type: "application/octet-stream", size: big.count,
                              sha256: sha256Hex(big)),
                        .init(name: "log", filename: "log.txt", content_type: "text/plain", size: streamed.count, sha256: sha256Hex(streamed)),
                    ])
                    if lengthKnown {
                        #expect(parsed.content_length.flatMap(Int.init) ?? 0 > big.count + streamed.count)
                        #expect(parsed.transfer_encoding == nil)
                    } else {
                        #expect(parsed.content_length == nil)
                        #expect(parsed.transfer_encoding == "chunked")
                    }
                    let last = progress.reports.last
                    #expect(last?.bytes ?? 0 > big.count + streamed.count)
                    #expect(progress.reports.map(\.bytes) == progress.reports.map(\.bytes).sorted())
                    if lengthKnown { #expect(last?.total == last?.bytes && last?.fraction == 1) }
                }
            }
        }
    }
}

/// Records progress reports from any thread.
final class ProgressRecorder: Sendable {
    private let log = Locked<[TransferProgress]>([])
    var reports: [TransferProgress] { log.withLock { $0 } }
    var record: @Sendable (TransferProgress) -> Void { { progress in self.log.withLock { $0.append(progress) } } }
}

/// `bytes` as an async sequence of chunks of `size`.
func chunks(of bytes: [UInt8], size: Int) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        var offset = 0
        while offset < bytes.count {
            continuation.yield(Array(bytes[offset ..< min(offset + size, bytes.count)]))
            offset += size
        }
        continuation.finish()
    }
}
