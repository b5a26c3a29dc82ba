import CLibUV

/// Builds `uv_buf_t` arrays over byte buffers for vectored writes.
enum UVBuffers {
    /// Calls `body` with `uv_buf_t`s that point into `buffers`, valid only inside `body`.
    static func with<C: Collection, R>(
        _ buffers: C, _ body: (UnsafePointer<uv_buf_t>, Int) -> R
    ) -> R where C.Element: WritableBytes {
        if buffers.count == 1, let only = buffers.first {
            return only.withBytes { bytes in
                var buf = uv_buf_init(UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self)),
                                      UInt32(bytes.count))
                return body(&buf, 1)
            }
        }
        var bufs: [uv_buf_t] = []
        bufs.reserveCapacity(buffers.count)
        // Nest one withUnsafeBytes per buffer so that every pointer stays valid while `body` runs.
        func nest(_ index: C.Index) -> R {
            guard index != buffers.endIndex else {
                return bufs.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
            }
            return buffers[index].withBytes { bytes in
                bufs.append(uv_buf_init(UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self)),
                                        UInt32(bytes.count)))
                return nest(buffers.index(after: index))
            }
        }
        return nest(buffers.startIndex)
    }

    /// Copies what is left of `buffers` after the first `skip` bytes into one owned block.
    static func copy<C: Collection>(_ buffers: C, droppingFirst skip: Int) -> UnsafeMutableRawBufferPointer
        where C.Element: WritableBytes {
        let total = buffers.reduce(0) { $0 + $1.count } - skip
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: total, alignment: 1)
        var toSkip = skip
        var offset = 0
        for buffer in buffers {
            if toSkip >= buffer.count { toSkip -= buffer.count; continue }
            buffer.withBytes { bytes in
                let part = UnsafeRawBufferPointer(rebasing: bytes[toSkip...])
                UnsafeMutableRawBufferPointer(rebasing: block[offset..<(offset + part.count)]).copyMemory(from: part)
                offset += part.count
            }
            toSkip = 0
        }
        return block
    }
}
