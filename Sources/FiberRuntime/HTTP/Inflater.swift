import CZlib

/// Inflates a `gzip` or `deflate` body with zlib as its bytes arrive, bounded
/// against decompression bombs: it stops past `maxSize` output bytes, or once
/// the output exceeds `maxRatio` times the compressed bytes zlib actually took
/// (checked past the first MiB, so small, highly compressible bodies pass).
/// Output is made one chunk at a time and each limit is checked after each
/// chunk, so a bomb fails within one chunk of its limit.
final class Inflater {
    struct Limits: Sendable, Hashable {
        var maxSize: Int
        var maxRatio: Int
    }

    /// Output is made in chunks of this size.
    static let chunkSize = 64 * 1024

    private var stream = z_stream()
    private let limits: Limits
    /// Compressed bytes zlib has taken.
    private var consumed = 0
    private var produced = 0
    private var rawDeflateTried = false
    private let encoding: String
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Inflater.chunkSize)
    /// The compressed stream ended; bytes after it are ignored, unless they
    /// begin another gzip member.
    private(set) var finished = false
    /// zlib filled the last chunk whole and may hold more output: call again, even without input.
    private(set) var hasPendingOutput = false

    /// - Throws: `HTTPClientError` `.decompressionFailed` if zlib cannot start.
    init(encoding: String, limits: Limits) throws(HTTPClientError) {
        self.encoding = encoding
        self.limits = limits
        // 15 + 32: zlib detects a gzip or zlib header by itself.
        // Every property is set: a throw here runs `deinit`, which frees what there is.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HTTPClientError(.decompressionFailed, "zlib could not start")
        }
    }

    deinit {
        inflateEnd(&stream)
        scratch.deallocate()
    }

    /// Inflates `input`, appending to `output`, until zlib has taken all of it
    /// and given all it can, or `maxOutput` bytes were appended (then call
    /// again with the rest of the input, or none if `hasPendingOutput`).
    ///
    /// - Returns: how many bytes of `input` were taken (all of them once the stream has ended).
    /// - Throws: `HTTPClientError` `.decompressionFailed` for corrupt data or a limit passed.
    @discardableResult
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        if finished {
            guard beginsGzipMember(input) else { return input.count }
            inflateReset(&stream)
            finished = false
        }
        let base = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: UInt8.self)) }
        stream.next_in = base
        stream.avail_in = UInt32(input.count)
        let consumedBefore = consumed
        var appended = 0
        while true {
            let inputBefore = stream.avail_in
            // Never more than `maxOutput` in one call, however the members and chunks fall.
            let room = min(scratch.count, maxOutput - appended)
            stream.next_out = scratch.baseAddress
            stream.avail_out = UInt32(room)
            var status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let taken = Int(inputBefore - stream.avail_in)
            let written = room - Int(stream.avail_out)
            consumed += taken
            if status == Z_DATA_ERROR, !rawDeflateTried, produced == 0, consumedBefore == 0, encoding == "deflate" {
                // Some servers send raw deflate (no zlib header) as "deflate": start over on the same bytes.
                rawDeflateTried = true
                inflateEnd(&stream)
                stream = z_stream()
                guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                    throw HTTPClientError(.decompressionFailed, "zlib could not start")
                }
                stream.next_in = base
                stream.avail_in = UInt32(input.count)
                consumed = 0
                continue
            }
            if status == Z_BUF_ERROR { status = Z_OK }  // no progress possible without more input: not an error
            guard status == Z_OK || status == Z_STREAM_END else {
                throw HTTPClientError(.decompressionFailed, "corrupt \(encoding) data (zlib \(status))")
            }
            produced += written
            if produced > limits.maxSize {
                throw HTTPClientError(.decompressionFailed, "inflates past \(limits.maxSize) bytes")
            }
            if produced > 1 << 20, produced / max(consumed, 1) > limits.maxRatio {
                throw HTTPClientError(.decompressionFailed, "inflates more than \(limits.maxRatio) times its size")
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<written]))
            appended += written
            hasPendingOutput = stream.avail_out == 0
            if status == Z_STREAM_END {
                hasPendingOutput = false
                // RFC 1952 §2.2: a gzip body may be several members, one after another (zlib stops at each).
                if beginsGzipMember(UnsafeRawBufferPointer(start: stream.next_in, count: Int(stream.avail_in))) {
                    inflateReset(&stream)  // keeps the input where it is
                    if appended >= maxOutput { break }  // the next call goes on with the next member
                    continue
                }
                finished = true
                return input.count
            }
            if stream.avail_in == 0 && !hasPendingOutput { break }
            if taken == 0 && written == 0 { break }  // zlib can do nothing more with what it has
            if appended >= maxOutput { break }
        }
        return Int(consumed - consumedBefore)
    }

    /// True when `bytes` start with gzip's magic number (its first byte, if that is all there is).
    private func beginsGzipMember(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard encoding == "gzip", let first = bytes.first, first == 0x1f else { return false }
        return bytes.count < 2 || bytes[1] == 0x8b
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
        guard let value = headers["Content-Encoding"]?.trimmingSpaces().lowercased() else { return nil }
        switch value {
        case "gzip", "x-gzip": return "gzip"
        case "deflate": return "deflate"
        default: return nil
        }
    }
}
