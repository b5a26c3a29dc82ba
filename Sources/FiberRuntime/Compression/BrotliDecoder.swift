#if Brotli
internal import CBrotli

/// The codebase's one libbrotlidec boundary: a `br` body (RFC 7932), decoded a
/// call at a time. Large-window brotli (windows up to 1 GiB, not RFC 7932) is
/// refused, as the library does by default: a stream's window is at most
/// 16 MiB, which bounds the ring buffer the decoder allocates for it.
///
/// Lifecycle: `init` creates the decoder state, `step` feeds it, `deinit` destroys it.
final class BrotliDecoder: ContentDecoder {
    private let state: OpaquePointer

    /// - Throws: `ContentDecodingError` when the state cannot be allocated.
    init() throws(ContentDecodingError) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw ContentDecodingError(description: "brotli could not start")
        }
        // Off by default; said here so that the bound does not hang on a library default.
        _ = BrotliDecoderSetParameter(state, BROTLI_DECODER_PARAM_LARGE_WINDOW, 0)
        self.state = state
    }

    deinit { BrotliDecoderDestroyInstance(state) }

    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep {
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        let step = ContentDecodingStep(taken: input.count - availableIn, written: output.count - availableOut,
                                       ended: result == BROTLI_DECODER_RESULT_SUCCESS)
        if result == BROTLI_DECODER_RESULT_ERROR {
            let code = BrotliDecoderGetErrorCode(state)
            let message = BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error"
            throw ContentDecodingError(description: "brotli \(code.rawValue): \(message)")
        }
        return step
    }

    /// A brotli body is one stream: nothing follows it.
    func continues(with bytes: UnsafeRawBufferPointer) -> Bool { false }
}
#endif
