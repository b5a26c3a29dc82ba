import Fiber
import OpenAPIRuntime

extension HTTPRequestBody {
    /// Fiber's streamed request body for an OpenAPI `body`, read chunk by chunk as it
    /// is sent: with its length when `body.length` is known, else chunked. A body that
    /// can be iterated many times is read anew for each attempt (replayable); one
    /// iterated once is read once (not replayable: no retry, no 307/308 resend).
    init(streaming body: HTTPBody) {
        let length: Int? = switch body.length {
        case .known(let count): Int(exactly: count)
        case .unknown: nil
        }
        switch body.iterationBehavior {
        case .multiple: self = .stream(length: length) { OpenAPIBodyChunks(body: body) }
        case .single: self = .stream(length: length, once: OpenAPIBodyChunks(body: body))
        }
    }
}

/// The chunks of an OpenAPI body as the byte arrays Fiber's request body reads.
struct OpenAPIBodyChunks: AsyncSequence, Sendable {
    typealias Element = [UInt8]

    let body: HTTPBody

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }

    /// Reads the next chunk of the body; nil at its end.
    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator

        mutating func next() async throws -> [UInt8]? {
            try await base.next().map { Array($0) }
        }
    }
}
