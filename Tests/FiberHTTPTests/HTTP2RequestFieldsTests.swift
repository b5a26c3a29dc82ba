@testable import FiberRuntime
import Testing

/// What a request's HEADERS hold over HTTP/2 (RFC 9113 §8.2.2, §8.3.1).
@Suite("HTTP/2 request fields")
struct HTTP2RequestFieldsTests {
    func fields(_ method: String = "GET", _ url: String = "https://example.com:8443/a/b?q=1", headers: HTTPHeaders = [:],
                length: Int? = nil, acceptEncoding: String? = "gzip, deflate") throws -> [(String, String)] {
        HTTP2RequestFields.fields(method: method, target: try HTTPTarget(url), headers: headers, bodyLength: length,
                                      acceptEncoding: acceptEncoding)
            .pairs.map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }
    }

    @Test func pseudoHeaderFieldsComeFirst() throws {
        let sent = try fields(headers: ["X-Trace": "1"])
        #expect(sent.prefix(4).map(\.0) == [":method", ":scheme", ":authority", ":path"])
        #expect(sent.prefix(4).map(\.1) == ["GET", "https", "example.com:8443", "/a/b?q=1"])
        #expect(sent.contains { $0 == ("x-trace", "1") }, "names in lower case")
        #expect(sent.contains { $0 == ("accept-encoding", "gzip, deflate") })
    }

    @Test func connectionSpecificFieldsAreNeverSent() throws {
        let sent = try fields("POST", headers: ["Connection": "keep-alive, X-Hop", "Keep-Alive": "timeout=5", "Proxy-Connection": "x",
                                                "Transfer-Encoding": "chunked", "Upgrade": "h2c", "X-Hop": "1", "TE": "gzip",
                                                "Content-Length": "999", "X-Kept": "yes"], length: 3)
        let names = sent.map(\.0)
        for gone in ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "x-hop", "te", "host"] {
            #expect(!names.contains(gone), "\(gone) is HTTP/1.1's connection, not the message's")
        }
        #expect(sent.filter { $0.0 == "content-length" }.map(\.1) == ["3"], "the client states the length it sends")
        #expect(names.contains("x-kept"))
        #expect(try fields(headers: ["TE": "trailers"]).contains { $0 == ("te", "trailers") })
    }

    @Test func aHostFieldBecomesTheAuthority() throws {
        let sent = try fields(headers: ["Host": "api.example.com"])
        #expect(sent.first { $0.0 == ":authority" }?.1 == "api.example.com")
        #expect(try fields(acceptEncoding: nil).allSatisfy { $0.0 != "accept-encoding" })
    }

    /// nghttp2 reads names and values in place: each is followed by a NUL, and
    /// the spans name exactly its bytes, an empty value included.
    @Test func theBlockLaysEveryFieldOutInOneBuffer() {
        var block = HTTP2FieldBlock(byteCapacity: 8, fieldCapacity: 1)
        block.append(lowercasing: "X-Mixed-CASE", value: "V a l")
        block.append(name: "empty".utf8, value: "".utf8)
        #expect(block.count == 2)
        #expect(block.bytes == Array("x-mixed-case\0V a l\0empty\0\0".utf8))
        #expect(block.pairs.map { String(decoding: $0.name, as: UTF8.self) } == ["x-mixed-case", "empty"])
        #expect(block.pairs.map { $0.value.count } == [5, 0])
        #expect(HTTP2FieldBlock(block.pairs).bytes == block.bytes)
    }
}
