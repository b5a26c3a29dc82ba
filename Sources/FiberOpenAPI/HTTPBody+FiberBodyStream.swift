import Fiber
import OpenAPIRuntime

extension HTTPBody {
    /// An OpenAPI body over a streamed Fiber response body, iterated once: each chunk
    /// is handed on as the runtime delivered it (an array shared by the slice, not
    /// copied through `Data`), and reading it is what pulls more from the socket.
    convenience init(streaming body: FiberBodyStream, length: Length) {
        self.init(FiberBodyChunks(body: body), length: length, iterationBehavior: .single)
    }
}

/// The chunks of a Fiber response body as the byte slices `HTTPBody` reads.
struct FiberBodyChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let body: FiberBodyStream

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.byteChunks()) }

    /// Reads the next chunk; nil at the end of the body.
    struct AsyncIterator: AsyncIteratorProtocol {
        var base: FiberBodyStream.ByteIterator

        /// - Throws: `FiberError` for a failure mid-body, as `FiberBodyStream` throws it.
        mutating func next() async throws -> ArraySlice<UInt8>? {
            try await base.next()?[...]
        }
    }
}
