#if Zstd
internal import CZstd

/// The codebase's one libzstd boundary: a `zstd` body (RFC 8878, RFC 9659),
/// decoded a call at a time, one frame after another (with or without their
/// content size; skippable frames are skipped). A frame whose window is over
/// 8 MiB is refused: RFC 9659 bounds HTTP's zstd windows there, and the window
/// is what the decoder allocates.
///
/// Lifecycle: `init` creates the context, `step` feeds it, `deinit` frees it.
final class ZstdDecoder: ContentDecoder {
    /// 2^23 = 8 MiB, RFC 9659 §3.
    static let windowLogMax: Int32 = 23

    private let context: OpaquePointer

    /// - Throws: `ContentDecodingError` when the context cannot be allocated.
    init() throws(ContentDecodingError) {
        guard let context = ZSTD_createDCtx() else { throw ContentDecodingError(description: "zstd could not start") }
        let status = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.windowLogMax)
        guard ZSTD_isError(status) == 0 else {
            ZSTD_freeDCtx(context)
            throw ContentDecodingError(description: "zstd: \(String(cString: ZSTD_getErrorName(status)))")
        }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var destination = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let status = ZSTD_decompressStream(context, &destination, &source)
        if ZSTD_isError(status) != 0 {
            throw ContentDecodingError(description: "zstd: \(String(cString: ZSTD_getErrorName(status)))")
        }
        // 0: a frame ended and all of its output was handed out.
        return ContentDecodingStep(taken: source.pos, written: destination.pos, ended: status == 0)
    }

    /// Frames follow one another (RFC 8878 §3): a zstd frame's magic number, or a skippable frame's.
    /// The context starts the next frame by itself.
    func continues(with bytes: UnsafeRawBufferPointer) -> Bool {
        if begins(bytes, with: [0x28, 0xb5, 0x2f, 0xfd]) { return true }
        // 0x184D2A50 to 0x184D2A5F, little-endian.
        guard let first = bytes.first, first & 0xf0 == 0x50 else { return false }
        return begins(UnsafeRawBufferPointer(rebasing: bytes[1...]), with: [0x2a, 0x4d, 0x18]) || bytes.count == 1
    }
}
#endif
