import CZlib

/// Raw-deflate compression of messages for permessage-deflate (the zlib boundary).
///
/// Each message is flushed with `Z_SYNC_FLUSH` and loses the trailing
/// `00 00 FF FF` (RFC 7692 §7.2.1). The stream is created on first use, so
/// idle connections hold no zlib state (about 256 KiB each).
package final class DeflateCompressor {
    private var stream = z_stream()
    private var started = false
    private let windowBits: Int32
    private let resetEachMessage: Bool

    package init(windowBits: Int, noContextTakeover: Bool) {
        // zlib cannot make a raw stream with an 8-bit window; 9 is its smallest.
        self.windowBits = Int32(max(9, windowBits))
        self.resetEachMessage = noContextTakeover
    }

    deinit { if started { deflateEnd(&stream) } }

    /// The compressed message, without its sync-flush tail.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` if zlib fails (it should not).
    package func compress(_ input: [UInt8]) throws(WebSocketError) -> [UInt8] {
        if !started {
            guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -windowBits, 8, Z_DEFAULT_STRATEGY,
                                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw WebSocketError(.protocolViolation, "zlib deflate could not start")
            }
            started = true
        }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 16)
        var produced = 0
        var status: Int32 = Z_OK
        input.withUnsafeBufferPointer { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.baseAddress)
            stream.avail_in = UInt32(inBytes.count)
            repeat {
                if produced == output.count { output += [UInt8](repeating: 0, count: max(64, output.count)) }
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress.map { $0 + produced }
                    stream.avail_out = UInt32(out.count - produced)
                    status = deflate(&stream, Z_SYNC_FLUSH)
                    produced = out.count - Int(stream.avail_out)
                }
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        guard status == Z_OK || status == Z_BUF_ERROR else {
            throw WebSocketError(.protocolViolation, "zlib deflate failed (\(status))")
        }
        output.removeSubrange(produced...)
        if output.suffix(4) == [0, 0, 0xFF, 0xFF] { output.removeLast(4) }
        if resetEachMessage { deflateReset(&stream) }
        return output
    }
}

/// Raw-deflate decompression of messages, bounded: it stops with 1009 past
/// the message size limit, so a small frame cannot inflate without limit.
package final class DeflateDecompressor {
    private var stream = z_stream()
    private var started = false
    private let resetEachMessage: Bool
    private var chunk: [UInt8] = []

    package init(noContextTakeover: Bool) { resetEachMessage = noContextTakeover }

    deinit { if started { inflateEnd(&stream) } }

    /// Inflates one frame's payload, appending to `output`; `last` adds the
    /// removed `00 00 FF FF` tail and ends the message.
    ///
    /// - Throws: `WebSocketError` `.protocolViolation` (1002) for corrupt data,
    ///   `.messageTooBig` (1009) once `output` would pass `limit`.
    package func inflate(_ input: [UInt8], last: Bool, into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        if !started {
            // A 15-bit window inflates any window the server may use.
            guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw WebSocketError(.protocolViolation, "zlib inflate could not start")
            }
            started = true
            chunk = [UInt8](repeating: 0, count: 16 * 1024)
        }
        try run(input, into: &output, limit: limit)
        if last {
            try run([0, 0, 0xFF, 0xFF], into: &output, limit: limit)
            if resetEachMessage { inflateReset(&stream) }
        }
    }

    private func run(_ input: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        guard !input.isEmpty else { return }
        var status: Int32 = Z_OK
        var failure: WebSocketError?
        input.withUnsafeBufferPointer { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.baseAddress)
            stream.avail_in = UInt32(inBytes.count)
            repeat {
                let written = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = CZlib.inflate(&stream, Z_SYNC_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                if output.count + written > limit {
                    failure = WebSocketError(.messageTooBig, "inflated message passes \(limit) bytes",
                                             closeCode: WebSocketCloseCode.messageTooBig)
                    return
                }
                output += chunk[0..<written]
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if let failure { throw failure }
        guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
            throw WebSocketError.protocolError("corrupt compressed data (zlib \(status))")
        }
    }
}
