/// Inflates a `gzip` or `deflate` body as its bytes arrive (through
/// `ZlibStream`), bounded against decompression bombs: it stops past `maxSize`
/// output bytes, or once the output exceeds `maxRatio` times the compressed
/// bytes zlib actually took (checked past the first MiB, so small, highly
/// compressible bodies pass). Output is made one chunk at a time and each limit
/// is checked after each chunk, so a bomb fails within one chunk of its limit.
final class Inflater {
    struct Limits: Sendable, Hashable {
        var maxSize: Int
        var maxRatio: Int
    }

    /// Output is made in chunks of this size.
    static let chunkSize = 64 * 1024

    private var stream: ZlibStream
    private let limits: Limits
    /// Compressed bytes zlib has taken.
    private var consumed = 0
    private var produced = 0
    /// `deflate` only: whether the first two bytes told a zlib stream from raw deflate yet.
    private var framingKnown: Bool
    /// `deflate` only: the first byte, held until the second arrives (whatever the reads' sizes).
    private var heldByte: UInt8?
    private let encoding: String
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// The compressed stream ended; bytes after it are ignored, unless they
    /// begin another gzip member (a lone first byte of one, at the very end, is ignored too).
    private(set) var finished = false
    /// Bytes that begin no gzip member followed the end: everything from them on is ignored.
    private var ignoringRest = false
    /// zlib filled the last chunk whole and may hold more output: call again, even without input.
    private(set) var hasPendingOutput = false

    /// - Throws: `HTTPClientError` `.decompressionFailed` if zlib cannot start.
    init(encoding: String, limits: Limits) throws(HTTPClientError) {
        self.encoding = encoding
        self.limits = limits
        framingKnown = encoding != "deflate"
        // zlib tells a gzip from a zlib header by itself.
        do {
            stream = try ZlibStream(inflating: .gzipOrZlib)
        } catch {
            throw HTTPClientError(.decompressionFailed, "zlib could not start")
        }
        // Allocated last: nothing is left to free when the stream cannot start.
        scratch = .allocate(capacity: Inflater.chunkSize)
    }

    deinit { scratch.deallocate() }

    /// Inflates `input`, appending to `output`, until zlib has taken all of it
    /// and given all it can, or `maxOutput` bytes were appended (then call
    /// again with the rest of the input, or none if `hasPendingOutput`).
    ///
    /// - Returns: how many bytes of `input` were taken (all of them once the stream has ended).
    /// - Throws: `HTTPClientError` `.decompressionFailed` for corrupt data or a limit passed.
    @discardableResult
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        try inflate(input, maxOutput: maxOutput) { output.append(contentsOf: $0) }
    }

    /// Inflates `input`, appending to `output`: as above, into a collected body.
    @discardableResult
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout CollectedBody, maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        try inflate(input, maxOutput: maxOutput) { output.append(UnsafeRawBufferPointer($0)) }
    }

    /// Inflates `input`, handing each chunk of output to `emit` (valid during the call only).
    private func inflate(_ input: UnsafeRawBufferPointer, maxOutput: Int,
                         emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(HTTPClientError) -> Int {
        if finished {
            if ignoringRest || input.isEmpty { return input.count }
            // A gzip member's first byte that ended a read: the next byte tells whether another member begins.
            if let held = heldByte {
                heldByte = nil
                guard input[0] == 0x8b else {
                    ignoringRest = true
                    return input.count
                }
                stream.reset()
                finished = false
                return try inflate(joining: held, input, maxOutput: maxOutput, emit: emit)
            }
            if isLoneGzipMagic(input) {
                heldByte = input[0]
                return input.count
            }
            guard beginsGzipMember(input) else {
                ignoringRest = true
                return input.count
            }
            stream.reset()
            finished = false
        }
        if !framingKnown { return try chooseFraming(input, maxOutput: maxOutput, emit: emit) }
        var offset = 0
        let consumedBefore = consumed
        var appended = 0
        while true {
            // Never more than `maxOutput` in one call, however the members and chunks fall.
            let room = min(scratch.count, maxOutput - appended)
            let step: ZlibStream.Step
            do throws(ZlibError) {
                let room = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: scratch[..<room]))
                step = try stream.step(UnsafeRawBufferPointer(rebasing: input[offset...]), into: room, flush: .none)
            } catch {
                throw HTTPClientError(.decompressionFailed, "corrupt \(encoding) data (\(error))")
            }
            offset += step.taken
            consumed += step.taken
            produced += step.written
            if produced > limits.maxSize {
                throw HTTPClientError(.decompressionFailed, "inflates past \(limits.maxSize) bytes")
            }
            if produced > 1 << 20, produced / max(consumed, 1) > limits.maxRatio {
                throw HTTPClientError(.decompressionFailed, "inflates more than \(limits.maxRatio) times its size")
            }
            emit(UnsafeBufferPointer(rebasing: scratch[..<step.written]))
            appended += step.written
            hasPendingOutput = step.written == room
            if step.ended {
                hasPendingOutput = false
                // RFC 1952 §2.2: a gzip body may be several members, one after another (zlib stops at each).
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                if beginsGzipMember(rest) {
                    stream.reset()
                    if appended >= maxOutput { break }  // the next call goes on with the next member
                    continue
                }
                finished = true
                if isLoneGzipMagic(rest) { heldByte = rest[0] } else if !rest.isEmpty { ignoringRest = true }
                return input.count
            }
            if offset == input.count && !hasPendingOutput { break }
            if step.taken == 0 && step.written == 0 { break }  // zlib can do nothing more with what it has
            if appended >= maxOutput { break }
        }
        return consumed - consumedBefore
    }

    /// `deflate`: some servers send raw deflate (no zlib header) under that name. The
    /// first two bytes tell them apart (RFC 1950 §2.2: method 8, a window of at most
    /// 32 KiB, and a check making them a multiple of 31), so the first byte waits for
    /// the second: the choice must not depend on where a read happens to end.
    private func chooseFraming(_ input: UnsafeRawBufferPointer, maxOutput: Int,
                               emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(HTTPClientError) -> Int {
        let held = heldByte.map { [$0] } ?? []
        guard held.count + input.count >= 2 else {
            heldByte = input.first ?? heldByte
            return input.count
        }
        let first = held.first ?? input[0], second = held.isEmpty ? input[1] : input[0]
        let isZlib = first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        if !isZlib {
            do {
                stream = try ZlibStream(inflating: .raw(windowBits: 15))
            } catch {
                throw HTTPClientError(.decompressionFailed, "zlib could not start")
            }
        }
        framingKnown = true
        heldByte = nil
        guard let byte = held.first else { return try inflate(input, maxOutput: maxOutput, emit: emit) }
        return try inflate(joining: byte, input, maxOutput: maxOutput, emit: emit)
    }

    /// Inflates a held byte, then `input`; returns how much of `input` was taken. No
    /// framing gives output from one byte, so a call that gives any took the held byte.
    private func inflate(joining held: UInt8, _ input: UnsafeRawBufferPointer, maxOutput: Int,
                         emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(HTTPClientError) -> Int {
        var result: Result<Int, HTTPClientError> = .success(0)
        ([held] + Array(input)).withUnsafeBytes { joined in
            result = Result { () throws(HTTPClientError) in try inflate(joined, maxOutput: maxOutput, emit: emit) }
        }
        return max(0, try result.get() - 1)
    }

    /// True when `bytes` start with gzip's magic number.
    private func beginsGzipMember(_ bytes: UnsafeRawBufferPointer) -> Bool {
        encoding == "gzip" && bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
    }

    /// True when `bytes` are the magic number's first byte alone: it is held until the next read.
    private func isLoneGzipMagic(_ bytes: UnsafeRawBufferPointer) -> Bool {
        encoding == "gzip" && bytes.count == 1 && bytes[0] == 0x1f
    }

    /// Inflates `input`, appending to `output`: as above, over an array.
    @discardableResult
    func inflate(_ input: [UInt8], into output: inout [UInt8], maxOutput: Int = .max) throws(HTTPClientError) -> Int {
        var result: Result<Int, HTTPClientError> = .success(0)
        input.withUnsafeBytes { bytes in
            result = Result { () throws(HTTPClientError) in try inflate(bytes, into: &output, maxOutput: maxOutput) }
        }
        return try result.get()
    }

    /// Checks that the compressed stream ended properly.
    ///
    /// - Throws: `HTTPClientError` `.decompressionFailed` for a truncated stream.
    func finish() throws(HTTPClientError) {
        if !finished, consumed > 0 || heldByte != nil { throw HTTPClientError(.decompressionFailed, "truncated \(encoding) data") }
    }

    /// The content coding of a response that this client inflates, if any.
    static func coding(of headers: HTTPHeaders) -> String? {
        guard let value = headers["Content-Encoding"]?.trimmingSpaces().lowercased() else { return nil }
        switch value {
        case "gzip", "x-gzip": return "gzip"
        case "deflate": return "deflate"
        default: return nil
        }
    }
}
