internal import CZlib

/// The codebase's one zlib boundary: a deflate or inflate stream, in any of
/// zlib's framings, with the flush modes the protocols need. The HTTP body
/// inflater, permessage-deflate (both ways) and the test servers' compressed
/// bodies all go through it; nothing else calls zlib.
///
/// Lifecycle: `init` starts the stream (zlib allocates its state, about
/// 256 KiB for a deflate stream with a 15-bit window, 40 KiB for inflate);
/// `step` or `process` feed it; `reset` starts a new stream on the same state
/// (a new gzip member, a message without context takeover); `deinit` ends it.
/// One owner at a time: not `Sendable`.
package final class ZlibStream {
    /// How the compressed bytes are framed.
    package enum Format: Sendable, Hashable {
        /// Bare deflate blocks (RFC 1951), as permessage-deflate and some `deflate` bodies send them.
        /// zlib cannot deflate with an 8-bit window; it uses 9 for 8.
        case raw(windowBits: Int)
        /// A zlib stream (RFC 1950): HTTP's `deflate`.
        case zlib
        /// A gzip stream (RFC 1952).
        case gzip
        /// Inflating only: a gzip or a zlib stream, told apart by their headers.
        case gzipOrZlib
    }

    /// When zlib must hand out what it has.
    package enum Flush: Sendable {
        /// As zlib sees fit (it may keep output back for better compression).
        case none
        /// Everything so far, ending on a byte boundary (deflate: with the `00 00 FF FF` of an empty stored block).
        case sync
        /// Everything, and the stream's end.
        case finish
    }

    /// What one call to zlib did.
    package struct Step: Sendable, Hashable {
        /// Input bytes zlib took.
        package var taken: Int
        /// Output bytes zlib wrote.
        package var written: Int
        /// The stream ended (inflate: the compressed data's end; deflate: after `.finish`).
        package var ended: Bool
    }

    /// The stream's state. A pointer, so that the state never moves: zlib's
    /// internal state points back at it.
    private let stream: UnsafeMutablePointer<z_stream>
    private let deflating: Bool
    /// Output of `process`, made lazily (the first use allocates it).
    private var scratch: UnsafeMutableBufferPointer<UInt8>?
    private let scratchSize: Int

    /// A stream that compresses into `format`.
    ///
    /// - Parameters:
    ///   - level: zlib's level, 0 (store) to 9 (smallest); nil for its default (6).
    ///   - chunkSize: the bytes `process` asks zlib for at a time.
    /// - Throws: `ZlibError` when zlib cannot start (out of memory), or for `.gzipOrZlib`, which only inflates.
    package init(deflating format: Format, level: Int? = nil, chunkSize: Int = 16 * 1024) throws(ZlibError) {
        let bits: Int32
        switch format {
        case .raw(let windowBits): bits = -Int32(min(15, max(9, windowBits)))
        case .zlib: bits = 15
        case .gzip: bits = 15 + 16
        case .gzipOrZlib: throw ZlibError(code: Z_STREAM_ERROR, "gzip-or-zlib is a format to inflate, not to make")
        }
        let level = Int32(level ?? Int(Z_DEFAULT_COMPRESSION))
        stream = try Self.start("deflate") {
            deflateInit2_($0, level, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        }
        deflating = true
        scratchSize = chunkSize
    }

    /// A stream that inflates `format`.
    ///
    /// - Parameter chunkSize: the bytes `process` asks zlib for at a time.
    /// - Throws: `ZlibError` when zlib cannot start (out of memory).
    package init(inflating format: Format, chunkSize: Int = 16 * 1024) throws(ZlibError) {
        let bits: Int32
        switch format {
        // Any window inflates with 15 bits, whatever the compressor used.
        case .raw: bits = -15
        case .zlib: bits = 15
        case .gzip: bits = 15 + 16
        case .gzipOrZlib: bits = 15 + 32
        }
        stream = try Self.start("inflate") { inflateInit2_($0, bits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) }
        deflating = false
        scratchSize = chunkSize
    }

    /// A started `z_stream`. Set before any other property, so that a failure
    /// here leaves nothing for `deinit` (which then does not run) to end or free.
    private static func start(_ direction: String, _ initialize: (UnsafeMutablePointer<z_stream>) -> Int32)
        throws(ZlibError) -> UnsafeMutablePointer<z_stream> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = initialize(stream)
        guard status == Z_OK else {
            stream.deallocate()
            throw ZlibError(code: status, "\(direction) could not start")
        }
        return stream
    }

    deinit {
        _ = deflating ? deflateEnd(stream) : inflateEnd(stream)
        stream.deallocate()
        scratch?.deallocate()
    }

    /// Starts a new stream with the same parameters, keeping zlib's memory.
    package func reset() {
        _ = deflating ? deflateReset(stream) : inflateReset(stream)
    }

    /// One call to zlib: it takes what it can of `input` and writes what it
    /// can into `output`. Neither buffer is kept past the call.
    ///
    /// - Throws: `ZlibError` for corrupt input (`isCorruptData`) or a stream in a bad state.
    package func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, flush: Flush)
        throws(ZlibError) -> Step {
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        // zlib counts in 32 bits: past 4 GiB it takes what it can, and `Step` says how much.
        stream.pointee.avail_in = UInt32(clamping: input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(clamping: output.count)
        let mode: Int32 = switch flush {
        case .none: Z_NO_FLUSH
        case .sync: Z_SYNC_FLUSH
        case .finish: Z_FINISH
        }
        let status = deflating ? deflate(stream, mode) : inflate(stream, mode)
        let step = Step(taken: Int(UInt32(clamping: input.count) - stream.pointee.avail_in),
                        written: Int(UInt32(clamping: output.count) - stream.pointee.avail_out), ended: status == Z_STREAM_END)
        // Nothing is kept past the call: no pointer into the caller's buffers stays behind.
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        stream.pointee.next_out = nil
        stream.pointee.avail_out = 0
        switch status {
        case Z_OK, Z_STREAM_END: return step
        case Z_BUF_ERROR: return step  // no progress possible without more input or room: not an error
        default:
            let detail = stream.pointee.msg.map { String(cString: $0) } ?? (status == Z_NEED_DICT ? "needs a preset dictionary" : "")
            throw ZlibError(code: status, detail)
        }
    }

    /// Feeds the whole of `input` with `flush` and appends all the output zlib
    /// gives for it to `output`, a chunk at a time.
    ///
    /// - Returns: true when the stream ended (input after its end is not taken).
    /// - Throws: `ZlibError` for corrupt input, or `.outputLimit` once
    ///   `output` would pass `limit` bytes (checked chunk by chunk, so a small
    ///   input cannot inflate without bound).
    @discardableResult
    package func process(_ input: UnsafeRawBufferPointer, flush: Flush, into output: inout [UInt8], limit: Int = .max)
        throws(ZlibError) -> Bool {
        let chunk = scratch ?? .allocate(capacity: scratchSize)
        scratch = chunk
        var offset = 0
        while true {
            let step = try step(UnsafeRawBufferPointer(rebasing: input[offset...]), into: UnsafeMutableRawBufferPointer(chunk),
                                flush: flush)
            offset += step.taken
            if output.count + step.written > limit { throw .outputLimit(limit) }
            // Typed, so that the append is one copy rather than a loop over bytes.
            output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<step.written]))
            if step.ended { return true }
            // All taken, and zlib had room to spare: it holds nothing back.
            if offset == input.count && step.written < chunk.count { return false }
            if step.taken == 0 && step.written == 0 { return false }
        }
    }

    /// `process` over an array.
    @discardableResult
    package func process(_ input: [UInt8], flush: Flush, into output: inout [UInt8], limit: Int = .max)
        throws(ZlibError) -> Bool {
        var result: Result<Bool, ZlibError> = .success(false)
        input.withUnsafeBytes { bytes in
            result = Result { () throws(ZlibError) in try process(bytes, flush: flush, into: &output, limit: limit) }
        }
        return try result.get()
    }
}

/// A failure of zlib, or of a limit set on its output.
package struct ZlibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// zlib's status code (negative), or 0 for `outputLimit`.
    package let code: Int32
    /// zlib's message, when it gave one.
    package let detail: String
    /// The output limit passed, for `outputLimit`.
    package let limit: Int?

    init(code: Int32, _ detail: String, limit: Int? = nil) {
        self.code = code
        self.detail = detail
        self.limit = limit
    }

    /// The output would pass `limit` bytes.
    package static func outputLimit(_ limit: Int) -> ZlibError { ZlibError(code: 0, "output passes \(limit) bytes", limit: limit) }

    /// The input is not valid compressed data (or needs a dictionary it cannot have).
    package var isCorruptData: Bool { code == Z_DATA_ERROR || code == Z_NEED_DICT }

    /// "zlib <code>: <message>", or the limit passed.
    package var description: String {
        if limit != nil { return detail }
        return detail.isEmpty ? "zlib \(code)" : "zlib \(code): \(detail)"
    }
}
