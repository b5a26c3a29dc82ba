import Foundation

/// Bytes a write can read in place: the socket takes what it can at once and
/// copies only the rest, so a buffer needs to stay valid only for the call.
/// Lets a request head and a `Data` body go out in one vectored write, with no
/// copy of the body into an array first.
package protocol WritableBytes {
    /// The number of bytes.
    var count: Int { get }
    /// Calls `body` with the bytes, valid only inside it.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: WritableBytes where Element == UInt8 {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

extension Data: WritableBytes {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

extension UnsafeRawBufferPointer: WritableBytes {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(self) }
}
