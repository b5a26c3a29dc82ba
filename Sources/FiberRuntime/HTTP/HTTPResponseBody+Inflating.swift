extension HTTPResponseBody {
    /// A body whose chunks are inflated as they arrive.
    init(inflating compressed: HTTPResponseBody, with inflater: Inflater, loop: EventLoop) {
        let source = compressed.buffer
        let output = ResponseBodyBuffer(loop: loop, lowWatermark: 0, highWatermark: Int.max / 2) { _ in }
        nonisolated(unsafe) let inflater = inflater
        Task(executorPreference: loop) {
            do {
                while let chunk = try await source.next() {
                    var inflated: [UInt8] = []
                    try inflater.inflate(chunk, into: &inflated)
                    if !inflated.isEmpty { await output.pushArray(inflated) }
                }
                try inflater.finish()
                await output.finish(nil)
            } catch {
                await output.finish(error as? HTTPClientError ?? HTTPClientError(.decompressionFailed, "\(error)"))
            }
        }
        self.init(buffer: output)
    }
}

extension ResponseBodyBuffer {
    func pushArray(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { push($0) }
    }
}
