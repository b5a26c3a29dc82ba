/// `gzip` and `deflate` bodies, through `ZlibStream`. zlib tells a gzip from a
/// zlib header by itself; a `deflate` body that turns out to be raw deflate (no
/// zlib header, as some servers send it) starts over as such on the same bytes.
final class ZlibContentDecoder: ContentDecoder {
    private var stream: ZlibStream
    private let coding: ContentCoding
    private var rawDeflateTried = false
    /// Nothing taken or written yet: the only moment raw deflate may be tried.
    private var untouched = true

    /// - Throws: `ContentDecodingError` if zlib cannot start (out of memory).
    init(_ coding: ContentCoding) throws(ContentDecodingError) {
        self.coding = coding
        stream = try Self.stream(.gzipOrZlib)
    }

    private static func stream(_ format: ZlibStream.Format) throws(ContentDecodingError) -> ZlibStream {
        do {
            return try ZlibStream(inflating: format)
        } catch {
            throw ContentDecodingError(description: "zlib could not start")
        }
    }

    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep {
        do throws(ZlibError) {
            let step = try stream.step(input, into: output, flush: .none)
            if step.taken > 0 || step.written > 0 { untouched = false }
            return ContentDecodingStep(taken: step.taken, written: step.written, ended: step.ended)
        } catch where error.isCorruptData && untouched && !rawDeflateTried && coding == .deflate {
            rawDeflateTried = true
            stream = try Self.stream(.raw(windowBits: 15))
            return try step(input, into: output)
        } catch {
            throw ContentDecodingError(description: "\(error)")
        }
    }

    /// RFC 1952 §2.2: a gzip body may be several members, one after another (zlib stops at each).
    func continues(with bytes: UnsafeRawBufferPointer) -> Bool {
        guard coding == .gzip, begins(bytes, with: [0x1f, 0x8b]) else { return false }
        stream.reset()
        return true
    }
}
