import FiberRuntime

/// Compressed bodies that inflate far beyond their size, to test how a client
/// bounds decompression.
public enum CompressionBomb {
    /// Gzip of `inflatedSize` zero bytes at the best compression: about a
    /// thousand to one. Made a MiB at a time, so the zeros are never held whole.
    public static func gzip(inflatedSize: Int) -> [UInt8] {
        // zlib fails to start only when memory runs out; a test cannot go on then.
        guard let stream = try? ZlibStream(deflating: .gzip, level: 9, chunkSize: 1 << 16) else {
            fatalError("zlib could not start")
        }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var result: [UInt8] = []
        var left = max(0, inflatedSize)
        repeat {
            let piece = min(left, zeros.count)
            left -= piece
            let flush: ZlibStream.Flush = left == 0 ? .finish : .none
            do {
                try zeros.withUnsafeBytes { bytes in
                    _ = try stream.process(UnsafeRawBufferPointer(rebasing: bytes[..<piece]), flush: flush, into: &result)
                }
            } catch {
                fatalError("zlib failed to deflate zeros: \(error)")  // it cannot, short of memory
            }
        } while left > 0
        return result
    }
}
