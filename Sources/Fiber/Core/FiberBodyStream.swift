import FiberRuntime
import Foundation

/// A response body that arrives in chunks, as an `AsyncSequence` of `Data`.
/// Read it once, to its end or not at all (dropping it closes the connection).
public struct FiberBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body, as it arrived.
    public typealias Element = Data
    private let make: @Sendable () -> AsyncIterator
    /// The chunks as byte arrays: as they came for a stream of arrays (the runtime's),
    /// copied from `Data` otherwise. For code that hands them on (a download to a file)
    /// without the copy into `Data`. (`package`: FiberOpenAPI hands them on the same way.)
    package let byteChunks: @Sendable () -> ByteIterator
    /// Where the trailers come from (see `trailers()`).
    private let trailerSource: @Sendable () async throws -> HTTPHeaders?

    /// A stream over any sequence of byte chunks; `trailers`, when given,
    /// answers `trailers()` (nil: the body has none).
    public init<S: AsyncSequence & Sendable>(
        _ chunks: S, trailers: (@Sendable () async throws -> HTTPHeaders?)? = nil
    ) where S.Element == [UInt8] {
        make = { AsyncIterator(chunks.makeAsyncIterator()) { Data($0) } }
        byteChunks = { ByteIterator(chunks.makeAsyncIterator()) { $0 } }
        trailerSource = trailers ?? { nil }
    }

    /// A stream over any sequence of `Data` chunks; `trailers`, when given,
    /// answers `trailers()` (nil: the body has none).
    public init<S: AsyncSequence & Sendable>(
        _ chunks: S, trailers: (@Sendable () async throws -> HTTPHeaders?)? = nil
    ) where S.Element == Data {
        make = { AsyncIterator(chunks.makeAsyncIterator()) { $0 } }
        byteChunks = { ByteIterator(chunks.makeAsyncIterator()) { [UInt8]($0) } }
        trailerSource = trailers ?? { nil }
    }

    /// A stream of one chunk (none if `data` is empty), followed by `trailers`.
    public init(data: Data, trailers: HTTPHeaders? = nil) {
        self.init(SingleChunk(data: data), trailers: { trailers })
    }

    /// The trailer fields that followed the body, once it has been read to its
    /// end; nil when there were none. It never waits. For a body of the HTTP
    /// transport, asked before the end was read it throws (only the body's
    /// reader brings the end closer); a body made whole from `data` knows its
    /// trailers at once.
    ///
    /// - Throws: `FiberError`: `.networkError` with `HTTPClientError` `.trailersNotReady`
    ///   before the end was read, or the body's own failure, mapped as `AsyncIterator.next()` maps it.
    public func trailers() async throws(FiberError) -> HTTPHeaders? {
        do {
            return try await trailerSource()
        } catch {
            throw FiberError(transportFailure: error)
        }
    }

    /// An iterator over the chunks (make one, once).
    public func makeAsyncIterator() -> AsyncIterator { make() }

    /// Reads the whole rest of the body.
    ///
    /// - Throws: `FiberError.networkError` past `maxBytes` or when the
    ///   connection fails mid-body (`.cancelled`, `.timeout` as mapped).
    public func collect(maxBytes: Int = 100 * 1024 * 1024) async throws(FiberError) -> Data {
        var all = Data()
        do {
            for try await chunk in self {
                all.append(chunk)
                if all.count > maxBytes { throw FiberError.networkError(underlying: BodyTooLarge(limit: maxBytes)) }
            }
        } catch {
            throw FiberError(transportFailure: error)
        }
        return all
    }

    /// Reads the next chunk; nil at the end of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var nextChunk: () async throws -> Data?

        init<I: AsyncIteratorProtocol>(_ base: I, convert: @escaping (I.Element) -> Data) {
            var iterator = base
            nextChunk = { try await iterator.next().map(convert) }
        }

        /// - Throws: `FiberError`: the transport's failure mid-body, mapped as
        ///   every other transport failure is (`FiberError.init(transportFailure:)`).
        public mutating func next() async throws -> Data? {
            do {
                return try await nextChunk()
            } catch {
                throw FiberError(transportFailure: error)
            }
        }
    }

    /// Reads the next chunk as bytes (see `byteChunks`); nil at the end of the body.
    package struct ByteIterator {
        private var nextChunk: () async throws -> [UInt8]?

        init<I: AsyncIteratorProtocol>(_ base: I, convert: @escaping (I.Element) -> [UInt8]) {
            var iterator = base
            nextChunk = { try await iterator.next().map(convert) }
        }

        /// - Throws: `FiberError`, as `AsyncIterator.next()`.
        package mutating func next() async throws -> [UInt8]? {
            do {
                return try await nextChunk()
            } catch {
                throw FiberError(transportFailure: error)
            }
        }
    }

    private struct SingleChunk: AsyncSequence, Sendable {
        let data: Data
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data.isEmpty ? nil : data) }
        struct AsyncIterator: AsyncIteratorProtocol {
            var data: Data?
            mutating func next() async -> Data? {
                defer { data = nil }
                return data
            }
        }
    }
}

/// A streamed body grew past the limit given to `collect(maxBytes:)`.
public struct BodyTooLarge: Error, Sendable, CustomStringConvertible {
    /// The limit, in bytes.
    public let limit: Int
    /// Says the limit.
    public var description: String { "response body larger than \(limit) bytes" }
}
