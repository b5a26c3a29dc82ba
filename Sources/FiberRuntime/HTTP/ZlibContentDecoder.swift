/// `gzip` and `deflate` bodies, through `ZlibStream`. zlib tells a gzip from a
/// zlib header by itself. Some servers send raw deflate (no zlib header) as
/// `deflate`: the first two bytes tell them apart (RFC 1950 §2.2: method 8, a
/// window of at most 32 KiB, and a check that makes them a multiple of 31), so
/// a first byte that arrives alone waits for the second, and the choice never
/// depends on where a read ends.
final class ZlibContentDecoder: ContentDecoder {
    private var stream: ZlibStream
    private let coding: ContentCoding
    /// `deflate` only: whether the framing is chosen yet.
    private var framingKnown: Bool
    /// `deflate` only: the first byte, held until the second arrives.
    private var heldByte: UInt8?

    /// - Throws: `ContentDecodingError` if zlib cannot start (out of memory).
    init(_ coding: ContentCoding) throws(ContentDecodingError) {
        self.coding = coding
        framingKnown = coding != .deflate
        stream = try Self.stream(.gzipOrZlib)
    }

    private static func stream(_ format: ZlibStream.Format) throws(ContentDecodingError) -> ZlibStream {
        do {
            return try ZlibStream(inflating: format)
        } catch {
            throw ContentDecodingError(description: "zlib could not start")
        }
    }

    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep {
        if !framingKnown {
            guard let next = input.first else { return ContentDecodingStep(taken: 0, written: 0, ended: false) }
            guard let first = heldByte else {
                guard input.count >= 2 else {
                    heldByte = next
                    return ContentDecodingStep(taken: 1, written: 0, ended: false)
                }
                try chooseFraming(next, input[1])
                return try inflate(input, into: output)
            }
            try chooseFraming(first, next)
            heldByte = nil
            var held = first
            let fed = try withUnsafeBytes(of: &held) { byte throws(ContentDecodingError) in try inflate(byte, into: output) }
            let rest = try inflate(input, into: UnsafeMutableRawBufferPointer(rebasing: output[fed.written...]))
            return ContentDecodingStep(taken: rest.taken, written: fed.written + rest.written, ended: rest.ended)
        }
        return try inflate(input, into: output)
    }

    private func chooseFraming(_ first: UInt8, _ second: UInt8) throws(ContentDecodingError) {
        let isZlib = first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        if !isZlib { stream = try Self.stream(.raw(windowBits: 15)) }
        framingKnown = true
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(ContentDecodingError) -> ContentDecodingStep {
        do throws(ZlibError) {
            let step = try stream.step(input, into: output, flush: .none)
            return ContentDecodingStep(taken: step.taken, written: step.written, ended: step.ended)
        } catch {
            throw ContentDecodingError(description: "\(error)")
        }
    }

    /// RFC 1952 §2.2: a gzip body may be several members, one after another (zlib stops at each).
    func continues(with bytes: UnsafeRawBufferPointer) -> Bool {
        guard coding == .gzip, begins(bytes, with: [0x1f, 0x8b]) else { return false }
        stream.reset()
        return true
    }
}
