import CZlib

/// Compressed bodies that inflate far beyond their size, to test how a client
/// bounds decompression.
public enum CompressionBomb {
    /// Gzip of `inflatedSize` zero bytes at the best compression: about a
    /// thousand to one. Made a MiB at a time, so the zeros are never held whole.
    public static func gzip(inflatedSize: Int) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var zeros = [UInt8](repeating: 0, count: 1 << 20)
        var out = [UInt8](repeating: 0, count: 1 << 16)
        var result: [UInt8] = []
        var left = max(0, inflatedSize)
        repeat {
            let piece = min(left, zeros.count)
            left -= piece
            let flush = left == 0 ? Z_FINISH : Z_NO_FLUSH
            zeros.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(piece)
                repeat {
                    let written = out.withUnsafeMutableBufferPointer { output in
                        stream.next_out = output.baseAddress
                        stream.avail_out = UInt32(output.count)
                        deflate(&stream, flush)
                        return output.count - Int(stream.avail_out)
                    }
                    result += out[..<written]
                } while stream.avail_out == 0
            }
        } while left > 0
        return result
    }
}
