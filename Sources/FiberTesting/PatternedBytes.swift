/// `count` bytes that no shift or reordering of 64 KiB pieces leaves equal: a pattern of
/// a prime length (65,521 bytes) from `seed`, repeated by whole-block copies. Built in
/// microseconds even under a sanitizer, where a byte-by-byte loop over mebibytes takes seconds
/// and starves the tests that run beside it.
public func patternedBytes(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    let period = 65_521
    let pattern = (0..<min(count, period)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) &+ seed }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var offset = 0
        pattern.withUnsafeBufferPointer { source in
            while offset < count {
                let n = min(source.count, count - offset)
                UnsafeMutableRawPointer(buffer.baseAddress! + offset).copyMemory(from: source.baseAddress!, byteCount: n)
                offset += n
            }
        }
        initialized = count
    }
}
