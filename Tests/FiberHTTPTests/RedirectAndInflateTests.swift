import CZlib
@testable import FiberRuntime
import Testing

@Suite("Redirect rules")
struct RedirectPolicyTests {
    func request(_ method: String, _ url: String, body: Bool = false) throws -> HTTPClientRequest {
        var r = try HTTPClientRequest(url: url, method: method, headers: ["Authorization": "Bearer x", "Cookie": "c=1", "Content-Type": "text/plain"])
        if body { r.body = .string("payload") }
        return r
    }

    @Test(arguments: [(301, "POST", "GET"), (302, "POST", "GET"), (303, "POST", "GET"), (303, "PUT", "GET"), (303, "HEAD", "HEAD"),
                      (307, "POST", "POST"), (308, "PUT", "PUT"), (301, "DELETE", "DELETE")])
    func methodRules(status: Int, method: String, expected: String) throws {
        var visited: Set<String> = []
        let next = try RedirectPolicy().next(after: status, location: "/next", request: request(method, "http://a.test/x", body: true),
                                             visited: &visited, followed: 0)
        #expect(next?.method == expected)
        #expect((next?.body == nil) == (expected != method))
        #expect(next?.target.description == "http://a.test/next")
    }

    @Test func crossOriginDropsCredentials() throws {
        var visited: Set<String> = []
        let same = try RedirectPolicy().next(after: 302, location: "/y", request: request("GET", "http://a.test/x"), visited: &visited, followed: 0)
        #expect(same?.headers["Authorization"] != nil && same?.headers["Cookie"] != nil)
        let other = try RedirectPolicy().next(after: 302, location: "http://b.test/y", request: request("GET", "http://a.test/x"), visited: &visited, followed: 0)
        #expect(other?.headers["Authorization"] == nil && other?.headers["Cookie"] == nil)
        let otherPort = try RedirectPolicy().next(after: 302, location: "http://a.test:81/y", request: request("GET", "http://a.test/x"), visited: &visited, followed: 0)
        #expect(otherPort?.headers["Authorization"] == nil)
    }

    @Test func httpsToHTTPIsRefusedUnlessAllowed() throws {
        var visited: Set<String> = []
        #expect { try RedirectPolicy().next(after: 301, location: "http://a.test/", request: request("GET", "https://a.test/"), visited: &visited, followed: 0) }
            throws: { ($0 as? HTTPClientError)?.kind == .insecureRedirect }
        let allowed = try RedirectPolicy(allowHTTPSToHTTP: true).next(after: 301, location: "http://a.test/", request: request("GET", "https://a.test/"), visited: &visited, followed: 0)
        #expect(allowed?.target.scheme == "http")
    }

    @Test func loopsAndLimits() throws {
        var visited: Set<String> = ["GET http://a.test/x"]
        #expect { try RedirectPolicy().next(after: 302, location: "/x", request: request("GET", "http://a.test/y"), visited: &visited, followed: 1) }
            throws: { ($0 as? HTTPClientError)?.kind == .redirectLoop }
        #expect { try RedirectPolicy(maxRedirects: 2).next(after: 302, location: "/z", request: request("GET", "http://a.test/y"), visited: &visited, followed: 2) }
            throws: { ($0 as? HTTPClientError)?.kind == .tooManyRedirects }
        #expect(try RedirectPolicy.never.next(after: 302, location: "/z", request: request("GET", "http://a.test/y"), visited: &visited, followed: 0) == nil)
        #expect(try RedirectPolicy().next(after: 200, location: "/z", request: request("GET", "http://a.test/y"), visited: &visited, followed: 0) == nil)
    }
}

/// Compresses with zlib: `gzip` (windowBits 31), `deflate` (zlib, 15) or raw deflate (-15).
func compress(_ input: [UInt8], windowBits: Int32) -> [UInt8] {
    var stream = z_stream()
    deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 64)
    var input = input
    let written = input.withUnsafeMutableBufferPointer { inBuf in
        output.withUnsafeMutableBufferPointer { outBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            stream.next_out = outBuf.baseAddress
            stream.avail_out = UInt32(outBuf.count)
            deflate(&stream, Z_FINISH)
            return outBuf.count - Int(stream.avail_out)
        }
    }
    return Array(output[..<written])
}

@Suite("Inflater")
struct InflaterTests {
    let text = Array(String(repeating: "Fiber inflates what the server compressed. ", count: 500).utf8)

    @Test(arguments: [("gzip", Int32(31)), ("deflate", Int32(15)), ("deflate", Int32(-15))])
    func inflatesInAnySplit(encoding: String, bits: Int32) throws {
        let compressed = compress(text, windowBits: bits)
        let inflater = try Inflater(encoding: encoding, limits: .init(maxSize: 1 << 20, maxRatio: 1000))
        var out: [UInt8] = []
        for piece in stride(from: 0, to: compressed.count, by: 7) {
            try inflater.inflate(Array(compressed[piece..<min(piece + 7, compressed.count)]), into: &out)
        }
        try inflater.finish()
        #expect(out == text)
    }

    @Test func stopsDecompressionBombs() throws {
        let bomb = compress([UInt8](repeating: 0, count: 50 << 20), windowBits: 31)  // 50 MiB of zeros in ~50 KiB
        let bySize = try Inflater(encoding: "gzip", limits: .init(maxSize: 10 << 20, maxRatio: 100_000))
        var out: [UInt8] = []
        #expect { try bySize.inflate(bomb, into: &out) } throws: { ($0 as? HTTPClientError)?.kind == .decompressionFailed }
        #expect(out.count <= 10 << 20)
        let byRatio = try Inflater(encoding: "gzip", limits: .init(maxSize: 1 << 30, maxRatio: 100))
        out = []
        #expect { try byRatio.inflate(bomb, into: &out) } throws: { ($0 as? HTTPClientError)?.kind == .decompressionFailed }
    }

    @Test func corruptAndTruncatedStreamsFail() throws {
        let compressed = compress(text, windowBits: 31)
        var out: [UInt8] = []
        let corrupt = try Inflater(encoding: "gzip", limits: .init(maxSize: 1 << 20, maxRatio: 1000))
        #expect { try corrupt.inflate([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff], into: &out) } throws: { _ in true }
        let truncated = try Inflater(encoding: "gzip", limits: .init(maxSize: 1 << 20, maxRatio: 1000))
        try truncated.inflate(Array(compressed.prefix(compressed.count / 2)), into: &out)
        #expect { try truncated.finish() } throws: { ($0 as? HTTPClientError)?.kind == .decompressionFailed }
    }
}
