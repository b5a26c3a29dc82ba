import Foundation
import Glibc

/// Memory for a large collected body of declared length, mapped on its own and
/// advised into transparent huge pages, then handed to `Data` without a copy.
///
/// A fresh buffer of many MiB is paid for page by page as its bytes arrive: with
/// 4 KiB pages, faulting in and zeroing a 100 MiB body costs more than reading it
/// from a loopback socket. Huge pages take a 512th of the faults. Pages are still
/// touched only as bytes arrive, so a length declared but never sent costs address
/// space, not memory.
///
/// Filled on the connection's loop only, then read once by the caller that the
/// exchange hands it to: `@unchecked Sendable` for that one hand-over.
package final class LargeBodyRegion: @unchecked Sendable {
    /// Declared lengths from this size up get a region of their own (below it, `Data`'s own storage serves).
    package static let threshold = 4 << 20
    private static let hugePage = 2 << 20

    private let mapping: UnsafeMutableRawPointer
    private let mappingSize: Int
    /// Where the body starts: the first huge-page boundary of the mapping.
    private let base: UnsafeMutableRawPointer
    /// The bytes the region can hold.
    package let capacity: Int
    /// The bytes written so far.
    package private(set) var count = 0
    /// The `Data` that owns the mapping once it is handed over.
    private var handed: Data?

    /// A region for `capacity` bytes, or nil when the system will not map one (the caller then uses `Data`).
    package init?(capacity: Int) {
        guard capacity > 0 else { return nil }
        // One huge page more than needed, so that the body can start on a boundary.
        let size = (capacity + Self.hugePage - 1) / Self.hugePage * Self.hugePage + Self.hugePage
        guard let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapping != MAP_FAILED else { return nil }
        let address = UInt(bitPattern: mapping)
        let aligned = (address + UInt(Self.hugePage) - 1) / UInt(Self.hugePage) * UInt(Self.hugePage)
        self.mapping = mapping
        self.mappingSize = size
        self.base = mapping + Int(aligned - address)
        self.capacity = capacity
        // Advice only: without transparent huge pages the region works with small ones.
        _ = madvise(base, size - Int(aligned - address), MADV_HUGEPAGE)
    }

    deinit {
        if handed == nil { munmap(mapping, mappingSize) }
    }

    /// The bytes written so far, valid while the region lives (it keeps the `Data` it handed over).
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Appends `part`; returns false, writing nothing, when it does not fit.
    package func append(_ part: UnsafeRawBufferPointer) -> Bool {
        guard let source = part.baseAddress, !part.isEmpty else { return true }
        guard handed == nil, part.count <= capacity - count else { return false }
        (base + count).copyMemory(from: source, byteCount: part.count)
        count += part.count
        return true
    }

    /// The bytes written, as `Data` that owns the mapping from now on (unmapped when it is freed).
    /// The same `Data` on every call; nothing can be appended afterwards.
    package func handOver() -> Data {
        if let handed { return handed }
        // An empty body leaves the mapping to `deinit`: `Data` of no bytes need not keep or free it.
        guard count > 0 else { return Data() }
        let (mapping, size) = (UInt(bitPattern: self.mapping), mappingSize)
        let data = Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in
            _ = munmap(UnsafeMutableRawPointer(bitPattern: mapping), size)
        })
        handed = data
        return data
    }
}
