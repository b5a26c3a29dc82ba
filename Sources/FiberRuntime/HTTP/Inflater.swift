import CZlib

/// Inflates a `gzip` or `deflate` body with zlib, bounded against
/// decompression bombs: it stops past `maxSize` output bytes, or once the
/// output exceeds `maxRatio` times the input (checked after the first MiB, so
/// small, highly compressible bodies pass).
final class Inflater {
    struct Limits: Sendable, Hashable {
        var maxSize: Int
        var maxRatio: Int
    }

    private var stream = z_stream()
    private let limits: Limits
    private var consumed = 0
    private var produced = 0
    private var rawDeflateTried = false
    private let encoding: String
    private(set) var finished = false

    /// - Throws: `HTTPClientError` `.decompressionFailed` if zlib cannot start.
    init(encoding: String, limits: Limits) throws(HTTPClientError) {
        self.encoding = encoding
        self.limits = limits
        // 15 + 32: zlib detects a gzip or zlib header by itself.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HTTPClientError(.decompressionFailed, "zlib could not start")
        }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates `input`, appending to `output`.
    ///
    /// - Throws: `HTTPClientError` `.decompressionFailed` for corrupt data or a limit passed.
    func inflate(_ input: [UInt8], into output: inout [UInt8]) throws(HTTPClientError) {
        guard !input.isEmpty, !finished else { return }
        consumed += input.count
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        let result: HTTPClientError? = input.withUnsafeBufferPointer { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.baseAddress)
            stream.avail_in = UInt32(inBytes.count)
            repeat {
                let written: Int = chunk.withUnsafeMutableBufferPointer { outBytes in
                    stream.next_out = outBytes.baseAddress
                    stream.avail_out = UInt32(outBytes.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return outBytes.count - Int(stream.avail_out)
                }
                if status == Z_DATA_ERROR, !rawDeflateTried, produced == 0, encoding == "deflate" {
                    // Some servers send raw deflate (no zlib header) as "deflate".
                    rawDeflateTried = true
                    inflateEnd(&stream)
                    stream = z_stream()
                    _ = inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
                    stream.next_in = UnsafeMutablePointer(mutating: inBytes.baseAddress)
                    stream.avail_in = UInt32(inBytes.count)
                    status = Z_OK
                    continue
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    return HTTPClientError(.decompressionFailed, "corrupt \(encoding) data (zlib \(status))")
                }
                produced += written
                if produced > limits.maxSize {
                    return HTTPClientError(.decompressionFailed, "inflates past \(limits.maxSize) bytes")
                }
                if produced > 1 << 20, produced / max(consumed, 1) > limits.maxRatio {
                    return HTTPClientError(.decompressionFailed, "inflates more than \(limits.maxRatio) times its size")
                }
                output.append(contentsOf: chunk[0..<written])
                if status == Z_STREAM_END { finished = true; break }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
            return nil
        }
        if let result { throw result }
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
