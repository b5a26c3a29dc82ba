@testable import FiberRuntime

/// The zlib boundary, both ways.
///
/// Input: one options byte (bits 0-1: raw, zlib or gzip; bits 2-5: the level),
/// then bytes. Rules: deflating the bytes (whole, or in pieces with a sync
/// flush between them) and inflating the result (whole, or in pieces) gives
/// the bytes back; inflating the bytes themselves with an output limit never
/// passes the limit, and gives the same in pieces as whole.
enum ZlibStreamFuzz {
    static let target = FuzzTarget(name: "zlib-stream", run: run, seeds: ZlibStreamSeeds.all)

    static let limit = 64 * 1024

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let format: ZlibStream.Format = switch first & 3 {
        case 0: .raw(windowBits: 9 + Int(first >> 2 & 7) % 7)
        case 1: .zlib
        default: .gzip
        }
        let level = Int(first >> 2 & 15) % 10
        let bytes = Array(input.dropFirst())
        let pieces = Array(FuzzSplits(input: bytes))
        do throws(ZlibError) {
            var compressed: [UInt8] = []
            let deflater = try ZlibStream(deflating: format, level: level)
            for range in pieces { try deflater.process(Array(bytes[range]), flush: .sync, into: &compressed) }
            try deflater.process([], flush: .finish, into: &compressed)
            for reads in [[0..<compressed.count], Array(FuzzSplits(input: compressed))] {
                var inflated: [UInt8] = []
                let inflater = try ZlibStream(inflating: format)
                var ended = false
                for range in reads { ended = try inflater.process(Array(compressed[range]), flush: .none, into: &inflated) }
                FuzzCheck.require(ended || compressed.isEmpty, "the deflated stream did not end")
                FuzzCheck.require(inflated == bytes, "round trip gave \(inflated.count) bytes for \(bytes.count)")
            }
        } catch {
            FuzzCheck.fail("a round trip failed: \(error)")
        }
        let whole = inflate([0..<bytes.count], of: bytes, format)
        let split = inflate(pieces, of: bytes, format)
        switch (whole, split) {
        case (.success(let a), .success(let b)):
            FuzzCheck.require(a.0 == b.0 && a.1 == b.1, "inflating whole and in pieces differ")
        case (.failure, .failure):
            break  // Which comes first, corrupt data or the limit, depends on where zlib's output chunks end.
        default:
            FuzzCheck.fail("whole: \(whole.map(\.0.count)), split: \(split.map(\.0.count))")
        }
    }

    static func inflate(_ reads: [Range<Int>], of bytes: [UInt8], _ format: ZlibStream.Format) -> Result<([UInt8], Bool), ZlibError> {
        Result { () throws(ZlibError) -> ([UInt8], Bool) in
            let stream = try ZlibStream(inflating: format)
            var output: [UInt8] = []
            var ended = false
            for range in reads where !ended {
                ended = try stream.process(Array(bytes[range]), flush: .none, into: &output, limit: limit)
                FuzzCheck.require(output.count <= limit, "\(output.count) bytes out, past the limit \(limit)")
            }
            return (output, ended)
        }
    }
}

enum ZlibStreamSeeds {
    static func all() -> [[UInt8]] {
        let text = Array(String(repeating: "permessage-deflate, gzip and zlib. ", count: 10).utf8)
        return [
            [0b1_1000] + text,
            [1] + text,
            [2] + text,
            [0] + InflaterSeeds.deflated(text, .raw(windowBits: 15)),
            [1] + InflaterSeeds.deflated(text, .zlib),
            [2] + InflaterSeeds.deflated(text, .gzip),
            [2] + InflaterSeeds.deflated([UInt8](repeating: 7, count: 200_000), .gzip),
        ]
    }
}
