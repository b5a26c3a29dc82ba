/// Responses of each shape the reader must handle, each behind its options byte.
enum HTTP1ResponseSeeds {
    static func all() -> [[UInt8]] {
        let body = String(repeating: "abcdefghij", count: 30)
        let shapes: [(UInt8, String)] = [
            (0, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"),
            (0, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"),
            (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"),
            (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Digest\r\n\r\n3\r\nabc\r\n0\r\nDigest: sha-256=x\r\nExpires: 0\r\n\r\n"),
            (0, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
            (0, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"),
            (0, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nread until the server closes"),
            (0, "HTTP/1.0 200 OK\r\n\r\nclose-delimited, HTTP/1.0"),
            (0, "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc"),
            (0, "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: \"x\"\r\n\r\n"),
            (0, "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n"),
            (1, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"),
            (2, "HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\nbody over the collect limit"),
            (2, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + String(repeating: "x", count: 1024) + "\r\n1\r\ny\r\n0\r\n\r\n"),
            (4, "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "v", count: 300) + "\r\nContent-Length: 0\r\n\r\n"),
            (0, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{0}"),
            (0, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n"),
            (0, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            (0, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
            (0, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\ncut"),
            (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
        ]
        return shapes.map { [$0.0] + Array($0.1.utf8) }
    }
}
