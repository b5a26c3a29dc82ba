import FiberRuntime

/// Raw-deflate compression of messages for permessage-deflate, over the
/// runtime's `ZlibStream`.
///
/// Each message is flushed with a sync flush and loses the trailing
/// `00 00 FF FF` (RFC 7692 §7.2.1). The stream is created on first use, so
/// idle connections hold no zlib state (about 256 KiB each).
package final class DeflateCompressor {
    private var stream: ZlibStream?
    private let windowBits: Int
    private let resetEachMessage: Bool

    /// A compressor with an LZ77 window of `windowBits` (9-15; zlib makes 9 of 8)
    /// that forgets its window after each message when `noContextTakeover`.
    package init(windowBits: Int, noContextTakeover: Bool) {
        self.windowBits = windowBits
        self.resetEachMessage = noContextTakeover
    }

    /// The compressed message, without its sync-flush tail.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` if zlib fails (it should not).
    package func compress(_ input: [UInt8]) throws(WebSocketError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 2 + 16)
        do throws(ZlibError) {
            let stream = try started()
            try stream.process(input, flush: .sync, into: &output)
            if resetEachMessage { stream.reset() }
        } catch {
            throw WebSocketError(.protocolViolation, "deflate failed (\(error))")
        }
        if output.suffix(4) == [0, 0, 0xFF, 0xFF] { output.removeLast(4) }
        return output
    }

    /// The stream, made on first use.
    private func started() throws(ZlibError) -> ZlibStream {
        if let stream { return stream }
        let stream = try ZlibStream(deflating: .raw(windowBits: windowBits))
        self.stream = stream
        return stream
    }
}

/// Raw-deflate decompression of messages, bounded: it stops with 1009 past
/// the message size limit, so a small frame cannot inflate without limit.
package final class DeflateDecompressor {
    private var stream: ZlibStream?
    private let resetEachMessage: Bool

    /// A decompressor that starts each message afresh when the server does not take its context over.
    package init(noContextTakeover: Bool) { resetEachMessage = noContextTakeover }

    /// Inflates one frame's payload, appending to `output`; `last` adds the
    /// removed `00 00 FF FF` tail and ends the message.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` (1002) for corrupt data,
    ///   `.messageTooBig` (1009) once `output` would pass `limit`.
    package func inflate(_ input: [UInt8], last: Bool, into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        do throws(ZlibError) {
            let stream = try started()
            var ended = try stream.process(input, flush: .sync, into: &output, limit: limit)
            if last {
                if !ended { ended = try stream.process(Self.tail, flush: .sync, into: &output, limit: limit) }
                // A message that ended its deflate stream (a final block) leaves nothing to take over.
                if resetEachMessage || ended { stream.reset() }
            }
        } catch let error where error.limit != nil {
            throw WebSocketError(.messageTooBig, "inflated message passes \(limit) bytes", closeCode: WebSocketCloseCode.messageTooBig)
        } catch {
            throw WebSocketError.protocolError("corrupt compressed data (\(error))")
        }
    }

    /// The stream, made on first use.
    private func started() throws(ZlibError) -> ZlibStream {
        if let stream { return stream }
        // A 15-bit window (what `.raw` inflates with) inflates any window the server may use.
        let stream = try ZlibStream(inflating: .raw(windowBits: 15))
        self.stream = stream
        return stream
    }

    /// The sync flush's tail that senders remove from each message (RFC 7692 §7.2.2).
    private static let tail: [UInt8] = [0, 0, 0xFF, 0xFF]
}
