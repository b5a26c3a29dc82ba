/// A way for the server to misbehave on purpose, to test how a client copes.
///
/// Use it as a response: `TestResponse.fault(.reset)`. Faults that send bytes
/// send exactly the bytes documented on their case, then close the connection.
public enum TestFault: Sendable, Hashable {
    /// Reads the request, then closes the connection (FIN) without sending a byte.
    case closeBeforeHead
    /// Sends `HTTP/1.1 200 OK`, `Content-Length: n + 10`, then `n` bytes of `x`,
    /// then closes: the body is cut ten bytes short. (To cut another response,
    /// use `closingMidBody(after:)` on it.)
    case closeMidBody(after: Int)
    /// As `closeMidBody`, but ends with a TCP reset instead of a FIN, 10 ms
    /// after the last byte (so the client reads the bytes, then `ECONNRESET`).
    case resetMidBody(after: Int)
    /// Reads the request, then resets the connection (RST): the client's
    /// pending read fails with `ECONNRESET`.
    case reset
    /// Reads the request and never answers; the connection stays open until
    /// the client closes it or the server shuts down (for read-timeout tests).
    case silent
    /// Sends `HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n`, then closes.
    case malformedStatusLine
    /// Sends `HTTP/1.1 200 OK\r\n`, then header lines `X-Filler-<i>: aaa…a\r\n`
    /// (100 `a`s each) until they total at least `bytes` bytes, then
    /// `Content-Length: 0\r\n\r\n`, then closes.
    case oversizedHeaders(bytes: Int)
    /// Sends a head with both framings,
    /// `HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`,
    /// then the chunked body `5\r\nhello\r\n0\r\n\r\n`, then closes.
    case conflictingFraming
    /// Sends `HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`, then closes.
    case conflictingContentLengths
    /// Sends `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`, then closes.
    case invalidChunkSize
}

extension TestResponse {
    /// What the server does with the response.
    enum Action: Sendable {
        /// Sends the status, headers and body.
        case respond
        /// Sends these bytes and nothing else, then closes or keeps the connection.
        case raw([UInt8], thenClose: Bool)
        /// Closes without sending anything.
        case closeBeforeHead
        /// Resets the connection without sending anything.
        case reset
        /// Sends nothing and keeps the connection open.
        case silent
    }

    /// How the response's bytes go out.
    struct Delivery: Sendable {
        /// Waited before anything is done.
        var delay: Duration = .zero
        /// Send at most `bytes` at a time, waiting `interval` between writes.
        var drip: (bytes: Int, interval: Duration)?
        /// Stop after this many body bytes (wire bytes, chunk framing included) and close or reset.
        var cut: (afterBodyBytes: Int, reset: Bool)?
    }

    // MARK: Faults

    /// A response that commits `fault` instead of answering properly.
    public static func fault(_ fault: TestFault) -> TestResponse {
        switch fault {
        case .closeBeforeHead:
            return TestResponse(action: .closeBeforeHead)
        case .reset:
            return TestResponse(action: .reset)
        case .silent:
            return TestResponse(action: .silent)
        case .closeMidBody(let n):
            return .bytes(Array(repeating: UInt8(ascii: "x"), count: max(0, n) + 10)).closingMidBody(after: n)
        case .resetMidBody(let n):
            return .bytes(Array(repeating: UInt8(ascii: "x"), count: max(0, n) + 10)).resettingMidBody(after: n)
        case .malformedStatusLine:
            return .raw("HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n", thenClose: true)
        case .oversizedHeaders(let bytes):
            var head = "HTTP/1.1 200 OK\r\n"
            var fieldBytes = 0
            var i = 0
            while fieldBytes < bytes {
                let line = "X-Filler-\(i): \(String(repeating: "a", count: 100))\r\n"
                head += line
                fieldBytes += line.utf8.count
                i += 1
            }
            return .raw(head + "Content-Length: 0\r\n\r\n", thenClose: true)
        case .conflictingFraming:
            return .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", thenClose: true)
        case .conflictingContentLengths:
            return .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", thenClose: true)
        case .invalidChunkSize:
            return .raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", thenClose: true)
        }
    }

    /// Sends exactly `bytes` (no status line or header is added), then closes
    /// the connection (`thenClose`) or goes on reading the next request.
    public static func raw(_ bytes: [UInt8], thenClose: Bool) -> TestResponse {
        TestResponse(action: .raw(bytes, thenClose: thenClose))
    }

    /// Sends exactly the UTF-8 bytes of `text`, then closes or keeps the connection.
    public static func raw(_ text: String, thenClose: Bool) -> TestResponse {
        .raw(Array(text.utf8), thenClose: thenClose)
    }

    /// `response`, after waiting `duration` (timed by the server's loop).
    public static func delay(_ duration: Duration, then response: TestResponse) -> TestResponse {
        response.delayed(by: duration)
    }

    // MARK: Delivery modifiers

    /// This response, after waiting `duration` more before anything is done
    /// (sending, closing, resetting).
    public func delayed(by duration: Duration) -> TestResponse {
        var copy = self
        copy.delivery.delay += duration
        return copy
    }

    /// This response sent `bytes` bytes at a time (at least 1), with `interval`
    /// between writes: a slow server. Applies to the head, the body and raw bytes.
    public func dripping(bytes: Int, every interval: Duration) -> TestResponse {
        var copy = self
        copy.delivery.drip = (max(1, bytes), interval)
        return copy
    }

    /// This response cut short: the head and the first `n` bytes of the body
    /// as they go on the wire (chunk framing included; for raw responses, the
    /// first `n` raw bytes), then the connection closes (FIN). If the body is
    /// shorter, it is sent whole and the connection still closes.
    public func closingMidBody(after n: Int) -> TestResponse {
        var copy = self
        copy.delivery.cut = (max(0, n), false)
        return copy
    }

    /// As `closingMidBody(after:)`, but the connection ends with a TCP reset,
    /// sent 10 ms after the last byte so that the client reads the bytes first.
    public func resettingMidBody(after n: Int) -> TestResponse {
        var copy = self
        copy.delivery.cut = (max(0, n), true)
        return copy
    }

    private init(action: Action) {
        self.init()
        self.action = action
    }
}
