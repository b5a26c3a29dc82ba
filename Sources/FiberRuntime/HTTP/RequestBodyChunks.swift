import Foundation

/// A request body read as it is sent: a stream's chunks, a file's 64 KiB
/// pieces, or the parts of a concatenated body one after the other. Nothing is
/// read ahead: the connection asks for the next chunk when the last is written.
///
/// A file is checked against the size it had when the request started (that
/// size went out as part of `Content-Length`): one that ends early or has
/// more bytes fails the body with `.requestBody`, naming the path, before a
/// byte past the declared length is written.
struct RequestBodyChunks: AsyncSequence, Sendable {
    typealias Element = [UInt8]

    /// One part of the body, its files measured.
    enum Part: Sendable {
        case bytes([UInt8])
        case data(Data)
        case stream(@Sendable () -> AnyByteChunks)
        /// A file of `size` bytes, opened when its turn comes.
        case file(path: String, size: Int)
    }

    /// A file is read in pieces of this size, the next one while the last is sent.
    static let pieceSize = 256 * 1024

    let parts: [Part]
    let loop: EventLoop

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: parts, loop: loop) }

    struct AsyncIterator: AsyncIteratorProtocol {
        private enum Reading {
            case data(Data, offset: Int)
            case stream(AnyByteChunks.AsyncIterator)
            /// `ahead`: the read of the piece at `offset`, started while the last piece was sent.
            case file(LoopFile, size: Int, offset: Int, ahead: Task<[UInt8], any Error>?)
        }

        private var parts: IndexingIterator<[Part]>
        private var reading: Reading?
        private let loop: EventLoop

        init(parts: [Part], loop: EventLoop) {
            self.parts = parts.makeIterator()
            self.loop = loop
        }

        mutating func next() async throws -> [UInt8]? {
            while true {
                if let chunk = try await nextOfCurrentPart() { return chunk }
                guard let part = parts.next() else { return nil }
                switch part {
                case .bytes(let bytes): if !bytes.isEmpty { return bytes }
                case .data(let data): reading = .data(data, offset: 0)
                case .stream(let make): reading = .stream(make().makeAsyncIterator())
                case .file(let path, let size):
                    // Each pass over the body opens its own descriptor; one dropped half-way closes with it.
                    reading = .file(try await Self.open(path, on: loop), size: size, offset: 0, ahead: nil)
                }
            }
        }

        /// The next chunk of the part being read, or nil when it is done (or none is).
        private mutating func nextOfCurrentPart() async throws -> [UInt8]? {
            switch reading {
            case nil:
                return nil
            case .data(let data, let offset):
                guard offset < data.count else {
                    reading = nil
                    return nil
                }
                let end = Swift.min(offset + RequestBodyChunks.pieceSize, data.count)
                reading = .data(data, offset: end)
                return [UInt8](data[data.startIndex + offset ..< data.startIndex + end])
            case .stream(var iterator):
                let chunk = try await iterator.next()
                reading = chunk == nil ? nil : .stream(iterator)
                return chunk
            case .file(let file, let size, let offset, let ahead):
                let want = Self.pieceLength(size: size, offset: offset)
                let isLast = offset + want == size
                var chunk: [UInt8]
                do {
                    if let ahead {
                        chunk = try await ahead.value
                    } else {
                        chunk = try await Self.readPiece(of: file, size: size, at: offset, on: loop)
                    }
                } catch {
                    throw HTTPClientError(.requestBody, "cannot read \(file.path)", transport: error as? TransportError)
                }
                if chunk.count > want {
                    throw HTTPClientError(.requestBody,
                                          "\(file.path) changed size while it was sent: \(size) bytes when the request started, more now")
                }
                if chunk.count < want, isLast || chunk.isEmpty {
                    throw HTTPClientError(.requestBody, """
                        \(file.path) changed size while it was sent: \(size) bytes when the request started, \(offset + chunk.count) now
                        """)
                }
                if isLast {
                    await file.close(on: loop)
                    reading = nil
                } else {
                    // The disk works on the next piece while the socket takes this one.
                    let next = offset + chunk.count
                    let loop = self.loop
                    reading = .file(file, size: size, offset: next, ahead: Task {
                        try await Self.readPiece(of: file, size: size, at: next, on: loop)
                    })
                }
                return chunk.isEmpty ? nil : chunk
            }
        }

        /// The length of the piece at `offset` of a file of `size` bytes.
        private static func pieceLength(size: Int, offset: Int) -> Int {
            Swift.min(RequestBodyChunks.pieceSize, size - offset)
        }

        /// Reads the piece at `offset`; the last piece with one byte more, so that a file
        /// that grew is seen before that piece goes out.
        private static func readPiece(of file: LoopFile, size: Int, at offset: Int, on loop: EventLoop) async throws -> [UInt8] {
            let want = pieceLength(size: size, offset: offset)
            return try await file.read(at: offset, count: offset + want == size ? want + 1 : want, on: loop)
        }

        /// Opens a part's file, failing with `.requestBody` naming it.
        static func open(_ path: String, on loop: EventLoop) async throws -> LoopFile {
            do {
                return try await LoopFile.open(path, on: loop)
            } catch {
                throw HTTPClientError(.requestBody, "cannot open \(path)", transport: error as? TransportError)
            }
        }
    }
}

extension HTTPRequestBody {
    /// The body as chunks to send on `loop`, with its length when known. Files are
    /// measured now (a missing one fails the request before it starts) and opened
    /// when their turn comes.
    ///
    /// - Throws: `HTTPClientError` `.requestBody` naming a file that cannot be opened or measured.
    func chunks(on loop: EventLoop) async throws -> (RequestBodyChunks, length: Int?) {
        var parts: [RequestBodyChunks.Part] = []
        var length: Int? = 0
        try await appendParts(to: &parts, length: &length, on: loop)
        return (RequestBodyChunks(parts: parts, loop: loop), length)
    }

    private func appendParts(to parts: inout [RequestBodyChunks.Part], length: inout Int?, on loop: EventLoop) async throws {
        switch source {
        case .bytes(let bytes):
            parts.append(.bytes(bytes))
            length? += bytes.count
        case .data(let data):
            parts.append(.data(data))
            length? += data.count
        case .stream(let n, let make):
            parts.append(.stream(make))
            length = length.flatMap { sum in n.map { sum + $0 } }
        case .file(let path):
            let size: Int
            do {
                size = try await LoopFile.size(of: path, on: loop)
            } catch {
                throw HTTPClientError(.requestBody, "cannot read \(path)", transport: error as? TransportError)
            }
            parts.append(.file(path: path, size: size))
            length? += size
        case .parts(let nested):
            for part in nested { try await part.appendParts(to: &parts, length: &length, on: loop) }
        }
    }

    /// The whole body in memory, for code that must see all of it (a signature, an
    /// encryption), reading a stream or a file through `loop` (default: one of the
    /// shared group's). A one-shot stream is spent by this.
    ///
    /// - Throws: `HTTPClientError` `.requestBody` when the body is longer than
    ///   `maxBytes`, a file cannot be read or changes size, or a one-shot stream was
    ///   read already; what a stream throws.
    public func collected(upTo maxBytes: Int, on loop: EventLoop? = nil) async throws -> Data {
        switch source {
        case .data(let data) where data.count <= maxBytes: return data
        case .bytes(let bytes) where bytes.count <= maxBytes: return Data(bytes)
        default: break
        }
        let tooLarge = HTTPClientError(.requestBody, "the body is larger than \(maxBytes) bytes, the most that may be collected")
        if let known = knownLength, known > maxBytes { throw tooLarge }
        let (chunks, length) = try await chunks(on: loop ?? EventLoopGroup.shared.next())
        if let length, length > maxBytes { throw tooLarge }
        var data = Data()
        if let length { data.reserveCapacity(length) }
        for try await chunk in chunks {
            guard data.count + chunk.count <= maxBytes else { throw tooLarge }
            data.append(contentsOf: chunk)
        }
        return data
    }
}
