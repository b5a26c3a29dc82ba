import Foundation

/// A collected response body, gathered in the form its caller will hand on:
/// an array for `HTTPClient.execute`, `Data` for a caller that returns
/// Foundation's type, so that neither converts the other with a copy of the
/// whole body. `Data` also keeps a small body inline (no allocation), and a large
/// one of declared length gets memory of its own in huge pages (`LargeBodyRegion`).
package enum CollectedBody: Sendable {
    /// The forms a body can be collected in.
    package enum Form: Sendable {
        case bytes
        case data
    }

    case bytes([UInt8])
    case data(Data)
    /// A large body of declared length collected for `Data`, in a region of its own (see `LargeBodyRegion`).
    case region(LargeBodyRegion)

    /// An empty body of `form`.
    package init(_ form: Form) {
        switch form {
        case .bytes: self = .bytes([])
        case .data: self = .data(Data())
        }
    }

    /// The number of bytes collected.
    package var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .data(let data): data.count
        case .region(let region): region.count
        }
    }

    /// The body as an array (a copy only if it was collected as `Data`).
    package var array: [UInt8] {
        switch self {
        case .bytes(let bytes): bytes
        case .data(let data): [UInt8](data)
        case .region(let region): [UInt8](region.bytes)
        }
    }

    /// The body as `Data` (a copy only if it was collected as an array).
    package var data: Data {
        switch self {
        case .bytes(let bytes): Data(bytes)
        case .data(let data): data
        case .region(let region): region.handOver()
        }
    }

    /// Calls `body` with the bytes collected.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch self {
        case .bytes(let bytes): try bytes.withUnsafeBytes(body)
        case .data(let data): try data.withUnsafeBytes(body)
        case .region(let region): try body(region.bytes)
        }
    }

    /// Appends `part`. (The payload is taken out of `self` first, so that it is
    /// uniquely referenced and grows in place rather than being copied.)
    package mutating func append(_ part: UnsafeRawBufferPointer) {
        switch self {
        case .bytes(var bytes):
            self = .bytes([])
            bytes.append(contentsOf: part)
            self = .bytes(bytes)
        case .data(var data):
            self = .bytes([])
            if let base = part.baseAddress { data.append(base.assumingMemoryBound(to: UInt8.self), count: part.count) }
            self = .data(data)
        case .region(let region):
            // More than was declared (the framing never allows it): on in `Data`, with one copy.
            guard !region.append(part) else { return }
            self = .data(Data(region.bytes))
            append(part)
        }
    }

    /// Makes room for `count` bytes in all, once (a body of known length would otherwise be copied as it grows).
    package mutating func reserveCapacity(_ count: Int) {
        switch self {
        case .bytes(var bytes):
            self = .bytes([])
            bytes.reserveCapacity(count)
            self = .bytes(bytes)
        case .data(var data):
            if data.isEmpty, count >= LargeBodyRegion.threshold, let region = LargeBodyRegion(capacity: count) {
                self = .region(region)
                return
            }
            self = .bytes([])
            data.reserveCapacity(count)
            self = .data(data)
        case .region:
            break
        }
    }
}
