@testable import FiberRuntime
import Testing

/// Feeds `text` to a response parser in the given pieces and collects what it reports.
private func parse(_ bytes: [UInt8], splits: [Int], headRequest: Bool = false, maxHeaderBytes: Int = 64 * 1024) throws
    -> (heads: [HTTP1Head], body: [UInt8], ends: Int, trailers: HTTPHeaders)
{
    let parser = HTTP1Parser(mode: .response, maxHeaderBytes: maxHeaderBytes)
    parser.expectsNoBody = headRequest
    var heads: [HTTP1Head] = [], body: [UInt8] = [], ends = 0, trailers = HTTPHeaders()
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    for cut in splits.sorted() where cut > start && cut < bytes.count {
        pieces.append(bytes[start..<cut])
        start = cut
    }
    pieces.append(bytes[start...])
    for piece in pieces {
        try Array(piece).withUnsafeBytes { buffer in
            var rest = buffer
            while !rest.isEmpty {
                let current = rest
                let outcome = try parser.feed(current) { event in
                    switch event {
                    case .head(let h): heads.append(h)
                    case .body(let r): body += current[r]
                    case .end(let t): ends += 1; trailers = t
                    }
                }
                switch outcome {
                case .needMore: rest = UnsafeRawBufferPointer(start: nil, count: 0)
                case .messageEnded(let n), .upgraded(let n): rest = UnsafeRawBufferPointer(rebasing: rest[n...])
                }
            }
        }
    }
    return (heads, body, ends, trailers)
}

@Suite("llhttp response parser")
struct ParserTests {
    static let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nX-a: 2\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n".utf8)

    @Test func parsesChunkedWithTrailersWholeByteByByteAndInRandomSplits() throws {
        let whole = try parse(Self.chunked, splits: [])
        #expect(whole.heads.count == 1 && whole.heads[0].status == 200)
        #expect(whole.heads[0].headers.values(name: "x-a") == ["1", "2"])
        #expect(String(decoding: whole.body, as: UTF8.self) == "hello, world")
        #expect(whole.ends == 1 && whole.trailers["X-Trailer"] == "t")
        let byteByByte = try parse(Self.chunked, splits: Array(1..<Self.chunked.count))
        #expect(byteByByte.body == whole.body && byteByByte.heads == whole.heads && byteByByte.trailers == whole.trailers)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let splits = (0..<5).map { _ in Int.random(in: 1..<Self.chunked.count, using: &generator) }
            let random = try parse(Self.chunked, splits: splits)
            #expect(random.body == whole.body && random.heads == whole.heads && random.ends == 1)
        }
    }

    @Test func skipsNothingButReportsInterimResponsesAsTheirOwnMessages() throws {
        let bytes = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let result = try parse(bytes, splits: [])
        #expect(result.heads.map(\.status) == [100, 200])
        #expect(result.ends == 2 && result.body == Array("ok".utf8))
    }

    @Test func headResponsesHaveNoBody() throws {
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8)
        let result = try parse(bytes, splits: [], headRequest: true)
        #expect(result.ends == 1 && result.body.isEmpty && result.heads[0].contentLength == 5)
    }

    @Test(arguments: [204, 304])
    func noBodyStatuses(status: Int) throws {
        let result = try parse(Array("HTTP/1.1 \(status) X\r\n\r\n".utf8), splits: [])
        #expect(result.ends == 1 && result.body.isEmpty)
    }

    @Test func readsKeepAliveFromVersionAndConnection() throws {
        #expect(try parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8), splits: []).heads[0].keepAlive)
        #expect(try !parse(Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8), splits: []).heads[0].keepAlive)
        #expect(try !parse(Array("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n".utf8), splits: []).heads[0].keepAlive)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 abc OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\u{0}b\r\n\r\n",
    ])
    func refusesMalformedResponses(text: String) {
        #expect { try parse(Array(text.utf8), splits: []) } throws: { ($0 as? HTTPClientError)?.kind == .malformedResponse }
    }

    @Test func refusesHeadersOverTheLimit() {
        let big = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: " + String(repeating: "a", count: 100) + "\r\n", count: 20) + "\r\n"
        #expect { try parse(Array(big.utf8), splits: [], maxHeaderBytes: 1024) } throws: {
            ($0 as? HTTPClientError)?.kind == .headersTooLarge
        }
        #expect(throws: Never.self) { try parse(Array(big.utf8), splits: [], maxHeaderBytes: 4096) }
    }
}
