/// A decoder of one HTTP content coding, fed by `Inflater`, which owns the
/// limits, the output chunks and the truncation check; a decoder only turns
/// compressed bytes into plain ones, a call at a time, and keeps no pointer
/// into either buffer past the call. Each library's decoder lives in its own
/// file, the only one that calls that library. One owner at a time: not `Sendable`.
protocol ContentDecoder: AnyObject {
    /// One call to the library: it takes what it can of `input` and writes what it can into `output`.
    ///
    /// - Throws: `ContentDecodingError` for data that is not valid in this coding, or that needs
    ///   more memory than the decoder allows (a window past its bound).
    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep

    /// Whether `bytes`, right after the end of a stream, begin another one this coding chains
    /// (gzip members, zstd frames); only a prefix may have arrived. When true, the decoder is
    /// ready for it; when false, the bytes are trailing garbage that the caller ignores.
    func continues(with bytes: UnsafeRawBufferPointer) -> Bool
}

/// What one call to a content decoder did.
struct ContentDecodingStep: Sendable, Hashable {
    /// Input bytes the decoder took.
    var taken: Int
    /// Output bytes it wrote.
    var written: Int
    /// The compressed stream (a gzip member, a zstd frame, a brotli stream) ended.
    var ended: Bool
}

/// A content decoder's failure: what its library said.
struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The library's message.
    var description: String
}

extension ContentDecoder {
    /// True when `bytes` could be the start of `magic`: all of it, or as much as has arrived.
    func begins(_ bytes: UnsafeRawBufferPointer, with magic: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        return zip(bytes, magic).allSatisfy { $0 == $1 }
    }
}
