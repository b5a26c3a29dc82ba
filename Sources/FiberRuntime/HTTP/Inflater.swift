/// Decodes a compressed body (`gzip`, `deflate`, and `br` and `zstd` when built
/// in: see `ContentCoding`) as its bytes arrive, through the coding's
/// `ContentDecoder`, bounded against decompression bombs: it stops past
/// `maxSize` output bytes, or once the output exceeds `maxRatio` times the
/// compressed bytes the decoder actually took (checked past the first MiB, so
/// small, highly compressible bodies pass). Output is made one chunk at a time
/// and each limit is checked after each chunk, so a bomb fails within one chunk
/// of its limit, whatever its coding.
final class Inflater {
    struct Limits: Sendable, Hashable {
        var maxSize: Int
        var maxRatio: Int
    }

    /// Output is made in chunks of this size.
    static let chunkSize = 64 * 1024

    private let decoder: any ContentDecoder
    private let limits: Limits
    /// Compressed bytes the decoder has taken.
    private var consumed = 0
    private var produced = 0
    private let encoding: String
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// The compressed stream ended; bytes after it are ignored, unless they
    /// begin another stream of the same coding (a gzip member, a zstd frame).
    private(set) var finished = false
    /// Bytes after an ended stream that begin no other: everything from them on is ignored.
    private var ignoringRest = false
    /// Bytes after an ended stream, too few yet to tell whether another stream begins
    /// (the choice must not depend on where a read ends); ignored if the body ends with them.
    private var held: [UInt8] = []
    /// Enough bytes to tell: zstd's frame magic is four bytes, gzip's two.
    private static let probeLength = 4
    /// The decoder filled the last chunk whole and may hold more output: call again, even without input.
    private(set) var hasPendingOutput = false

    /// - Throws: `HTTPClientError` `.decompressionFailed` if the coding is not one this build
    ///   decodes, or its decoder cannot start.
    init(encoding: String, limits: Limits) throws(HTTPClientError) {
        guard let coding = ContentCoding(contentEncoding: encoding) else {
            throw HTTPClientError(.decompressionFailed, "no decoder for \(encoding)")
        }
        self.encoding = coding.rawValue
        self.limits = limits
        do {
            decoder = try coding.makeDecoder()
        } catch {
            throw HTTPClientError(.decompressionFailed, "\(coding.rawValue) could not start: \(error)")
        }
        // Allocated last: nothing is left to free when the decoder cannot start.
        scratch = .allocate(capacity: Inflater.chunkSize)
    }

    deinit { scratch.deallocate() }

    /// Inflates `input`, appending to `output`, until the decoder has taken all of it
    /// and given all it can, or `maxOutput` bytes were appended (then call
    /// again with the rest of the input, or none if `hasPendingOutput`).
    ///
    /// - Returns: how many bytes of `input` were taken (all of them once the stream has ended).
    /// - Throws: `HTTPClientError` `.decompressionFailed` for corrupt data or a limit passed.
    @discardableResult
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        try inflate(input, maxOutput: maxOutput) { output.append(contentsOf: $0) }
    }

    /// Inflates `input`, appending to `output`: as above, into a collected body.
    @discardableResult
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout CollectedBody, maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        try inflate(input, maxOutput: maxOutput) { output.append(UnsafeRawBufferPointer($0)) }
    }

    /// Inflates `input`, handing each chunk of output to `emit` (valid during the call only).
    private func inflate(_ input: UnsafeRawBufferPointer, maxOutput: Int,
                         emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(HTTPClientError) -> Int {
        if finished {
            if ignoringRest || input.isEmpty { return input.count }
            let probe = held + input.prefix(Self.probeLength - held.count)
            guard decoder.continues(with: UnsafeRawBufferPointer(start: probe, count: probe.count)) else {
                ignoringRest = true
                held = []
                return input.count
            }
            if probe.count < Self.probeLength {
                held = probe
                return input.count
            }
            finished = false
            if !held.isEmpty {
                let joined = held + Array(input)
                held = []
                var result: Result<Int, HTTPClientError> = .success(0)
                joined.withUnsafeBytes { bytes in
                    result = Result { () throws(HTTPClientError) in try inflate(bytes, maxOutput: maxOutput, emit: emit) }
                }
                let taken = try result.get(), heldCount = joined.count - input.count
                // Output full before the held bytes were all taken: they wait for the next call.
                if taken < heldCount {
                    held = Array(joined[taken..<heldCount])
                    finished = true
                }
                return max(0, taken - heldCount)
            }
        }
        var offset = 0
        let consumedBefore = consumed
        var appended = 0
        while true {
            // Never more than `maxOutput` in one call, however the streams and chunks fall.
            let room = min(scratch.count, maxOutput - appended)
            let step: ContentDecodingStep
            do throws(ContentDecodingError) {
                let room = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: scratch[..<room]))
                step = try decoder.step(UnsafeRawBufferPointer(rebasing: input[offset...]), into: room)
            } catch {
                throw HTTPClientError(.decompressionFailed, "corrupt \(encoding) data (\(error))")
            }
            offset += step.taken
            consumed += step.taken
            produced += step.written
            if produced > limits.maxSize {
                throw HTTPClientError(.decompressionFailed, "inflates past \(limits.maxSize) bytes")
            }
            if produced > 1 << 20, produced / max(consumed, 1) > limits.maxRatio {
                throw HTTPClientError(.decompressionFailed, "inflates more than \(limits.maxRatio) times its size")
            }
            emit(UnsafeBufferPointer(rebasing: scratch[..<step.written]))
            appended += step.written
            hasPendingOutput = step.written == room
            if step.ended {
                hasPendingOutput = false
                // Another gzip member or zstd frame may follow (the decoder stops at each).
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                if rest.count < Self.probeLength {
                    // Too few bytes to tell here: the next call (or the body's end) decides.
                    finished = true
                    if !rest.isEmpty {
                        if decoder.continues(with: rest) { held = Array(rest) } else { ignoringRest = true }
                    }
                    return input.count
                }
                if decoder.continues(with: rest) {
                    if appended >= maxOutput { break }  // the next call goes on with the next stream
                    continue
                }
                finished = true
                return input.count
            }
            if offset == input.count && !hasPendingOutput { break }
            if step.taken == 0 && step.written == 0 { break }  // the decoder can do nothing more with what it has
            if appended >= maxOutput { break }
        }
        return consumed - consumedBefore
    }

    /// Inflates `input`, appending to `output`: as above, over an array.
    @discardableResult
    func inflate(_ input: [UInt8], into output: inout [UInt8], maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        var result: Result<Int, HTTPClientError> = .success(0)
        input.withUnsafeBytes { bytes in
            result = Result { () throws(HTTPClientError) in try inflate(bytes, into: &output, maxOutput: maxOutput) }
        }
        return try result.get()
    }

    /// Checks that the compressed stream ended properly.
    ///
    /// - Throws: `HTTPClientError` `.decompressionFailed` for a truncated stream.
    func finish() throws(HTTPClientError) {
        if !finished, consumed > 0 { throw HTTPClientError(.decompressionFailed, "truncated \(encoding) data") }
    }

    /// The content coding of a response that this client inflates, if any.
    static func coding(of headers: HTTPHeaders) -> String? {
        guard let value = headers["Content-Encoding"] else { return nil }
        return ContentCoding(contentEncoding: value)?.rawValue
    }
}
