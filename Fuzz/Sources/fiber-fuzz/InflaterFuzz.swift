@testable import FiberRuntime

/// The response body inflater with its bounds.
///
/// Input: one options byte (bit 0: `gzip`, else `deflate`; bits 1-3: the
/// most output per call, from 1 byte up), then the body as it came.
///
/// Rules: never more than `maxSize` bytes out, and never more than
/// `maxOutput` in one call; a call with input left takes some or gives output (no spin);
/// fed whole, or in pieces with the output taken a little at a time, it
/// gives the same bytes, or fails both ways.
enum InflaterFuzz {
    static let target = FuzzTarget(name: "inflater", run: run, seeds: InflaterSeeds.all)

    static let limits = Inflater.Limits(maxSize: 256 * 1024, maxRatio: 100)

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let encoding = first & 1 == 0 ? "deflate" : "gzip"
        let maxOutput = [1, 7, 100, 4096, 65_536, 100_000, .max, .max][Int(first >> 1 & 7)]
        let body = Array(input.dropFirst())
        let whole = inflate([0..<body.count], of: body, encoding: encoding, maxOutput: .max)
        let split = inflate(Array(FuzzSplits(input: body)), of: body, encoding: encoding, maxOutput: maxOutput)
        switch (whole, split) {
        case (.success(let a), .success(let b)):
            FuzzCheck.require(a == b, "whole gave \(a.count) bytes, split \(b.count), different")
        case (.failure, .failure):
            break
        default:
            FuzzCheck.fail("whole: \(whole.map(\.count)), split: \(split.map(\.count))")
        }
    }

    static func inflate(_ reads: [Range<Int>], of body: [UInt8], encoding: String, maxOutput: Int) -> Result<[UInt8], HTTPClientError> {
        Result { () throws(HTTPClientError) -> [UInt8] in
            let inflater = try Inflater(encoding: encoding, limits: limits)
            var output: [UInt8] = []
            for range in reads {
                var rest = Array(body[range])
                var calls = 0
                while !rest.isEmpty || inflater.hasPendingOutput {
                    calls += 1
                    FuzzCheck.require(calls < 1_000_000, "more than a million calls for one read")
                    let before = output.count
                    let taken = try inflater.inflate(rest, into: &output, maxOutput: maxOutput)
                    FuzzCheck.require((0...rest.count).contains(taken), "took \(taken) of \(rest.count) bytes")
                    FuzzCheck.require(output.count - before <= maxOutput, "\(output.count - before) bytes out, past maxOutput \(maxOutput)")
                    // Only the call that asks for pending output may find none; with input left, it would spin.
                    FuzzCheck.require(taken > 0 || output.count > before || rest.isEmpty, "a call took nothing and gave nothing (it would spin)")
                    rest.removeFirst(taken)
                }
                FuzzCheck.require(output.count <= limits.maxSize, "\(output.count) bytes out, past maxSize \(limits.maxSize)")
            }
            try inflater.finish()
            return output
        }
    }
}

/// Bodies of each coding: gzip (one member, several, with a name), zlib, raw
/// deflate sent as `deflate`, empty and highly compressible ones.
enum InflaterSeeds {
    static func all() -> [[UInt8]] {
        let text = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 20).utf8)
        let zeros = [UInt8](repeating: 0, count: 300_000)
        var seeds: [[UInt8]] = []
        for (optionsByte, format) in [(UInt8(1), ZlibStream.Format.gzip), (0, .zlib), (0, .raw(windowBits: 15))] {
            seeds.append([optionsByte] + deflated(text, format))
            seeds.append([optionsByte | 0b0100] + deflated([], format))
            seeds.append([optionsByte | 0b1000] + deflated(zeros, format))
        }
        seeds.append([1] + deflated(text, .gzip) + deflated(Array("second member".utf8), .gzip))
        seeds.append([1] + deflated(text, .gzip) + Array("trailing bytes".utf8))
        return seeds
    }

    static func deflated(_ bytes: [UInt8], _ format: ZlibStream.Format) -> [UInt8] {
        var out: [UInt8] = []
        do {
            try ZlibStream(deflating: format).process(bytes, flush: .finish, into: &out)
        } catch {
            FuzzCheck.fail("deflate failed: \(error)")
        }
        return out
    }
}
