@testable import FiberRuntime

/// The HTTP/2 session (`NGHTTP2Session`, over nghttp2) reading what a server sends.
///
/// Input: the server's bytes, after the client has sent its preface and SETTINGS
/// and opened two streams: a GET on stream 1 and a POST with a 10-byte body on 3.
///
/// Rules: fed whole or in pieces, the session reports the same header fields,
/// ends of header blocks, body bytes (per stream, joined: pieces may cut them
/// differently), stream closes, GOAWAY, SETTINGS and PING acknowledgements, in
/// the same order, and fails at the same point, if it fails; it never reports
/// a frame for a stream the client did not open, and never asks for the body
/// of a stream other than 3. After the first protocol error (a stream or the
/// session refused) or GOAWAY, what nghttp2 still reports of a session that
/// is ending depends on where the reads were cut (the client closes such a
/// connection): the events are compared up to that point.
enum HTTP2FramesFuzz {
    static let target = FuzzTarget(name: "http2-frames", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let whole = untilFirstError(HTTP2EventRecorder.events(feeding: [0..<input.count], of: input))
        let split = untilFirstError(HTTP2EventRecorder.events(feeding: Array(FuzzSplits(input: input)), of: input))
        FuzzCheck.require(whole == split, "whole gave \(whole.count) events, split \(split.count): \(whole.suffix(3)) vs \(split.suffix(3))")
    }

    static func untilFirstError(_ events: [String]) -> [String] {
        guard let error = events.firstIndex(where: { $0.hasPrefix("invalid") || $0.hasPrefix("failed") || $0.hasPrefix("goaway") }) else { return events }
        return Array(events[...error])
    }

    /// Valid servers' answers: SETTINGS, then responses with and without bodies, trailers, GOAWAY, PING.
    static func seeds() -> [[UInt8]] {
        let settings = frame(type: 4, flags: 0, stream: 0, [0, 3, 0, 0, 0, 100])  // MAX_CONCURRENT_STREAMS 100
        let settingsAck = frame(type: 4, flags: 1, stream: 0, [])
        let ok1 = frame(type: 1, flags: 4, stream: 1, [0x88])  // :status 200 (static table 8), END_HEADERS
        let data1 = frame(type: 0, flags: 1, stream: 1, Array("hello".utf8))
        let ok3 = frame(type: 1, flags: 5, stream: 3, [0x8d])  // :status 404 (index 13), END_HEADERS|END_STREAM
        let trailers = frame(type: 1, flags: 5, stream: 1, [0x40, 0x01, 0x78, 0x01, 0x79])  // x: y, END_STREAM
        let data1Open = frame(type: 0, flags: 0, stream: 1, Array("part".utf8))
        let ping = frame(type: 6, flags: 0, stream: 0, Array(repeating: 7, count: 8))
        let pingAck = frame(type: 6, flags: 1, stream: 0, Array(repeating: 0, count: 8))
        let goaway = frame(type: 7, flags: 0, stream: 0, [0, 0, 0, 1, 0, 0, 0, 0])
        let reset3 = frame(type: 3, flags: 0, stream: 3, [0, 0, 0, 7])
        let window = frame(type: 8, flags: 0, stream: 0, [0, 0, 0x10, 0])
        return [
            settings + settingsAck + ok1 + data1 + ok3,
            settings + ok1 + data1Open + trailers + reset3,
            settings + ping + pingAck + window + ok3 + goaway,
            settings + frame(type: 1, flags: 4, stream: 1, [0x89]) + ok1 + data1,  // 204 then 200
            settings + goaway + ok1 + data1,
        ]
    }

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
    }
}

/// Writes down what an `NGHTTP2Session` reports, body bytes joined per stream.
final class HTTP2EventRecorder: NGHTTP2SessionDelegate {
    private(set) var events: [String] = []
    private var body: [Int32: [UInt8]] = [:]
    private var uploadLeft = 10

    static func events(feeding reads: [Range<Int>], of bytes: [UInt8]) -> [String] {
        let recorder = HTTP2EventRecorder()
        do {
            let session = try NGHTTP2Session(delegate: recorder, settings: .init(
                maxConcurrentStreams: 100, streamWindowSize: 65_535, connectionWindowSize: 1 << 20,
                maxHeaderListSize: 16 * 1024, maxContinuationFrames: 8))
            let get = [(Array(":method".utf8), Array("GET".utf8)), (Array(":scheme".utf8), Array("https".utf8)),
                       (Array(":authority".utf8), Array("a.test".utf8)), (Array(":path".utf8), Array("/".utf8))]
            var post = get
            post[0].1 = Array("POST".utf8)
            let first = try session.submitRequest(HTTP2FieldBlock(get.map { (name: $0.0, value: $0.1) }), hasBody: false)
            let second = try session.submitRequest(HTTP2FieldBlock(post.map { (name: $0.0, value: $0.1) }), hasBody: true)
            FuzzCheck.require(first == 1 && second == 3, "streams \(first) and \(second)")
            try session.pendingOutput { _ in true }
            for range in reads {
                let piece = Array(bytes[range])
                var failure: HTTPClientError?
                piece.withUnsafeBytes { bytes in
                    do throws(HTTPClientError) { try session.receive(bytes) } catch { failure = error }
                }
                if let failure {
                    recorder.flush()
                    recorder.events.append("failed \(failure.http2ErrorCode.map(String.init) ?? "-")")
                    return recorder.events
                }
            }
            // What the client sends back (acknowledgements, resets) is framed once, after every piece:
            // framed between pieces, it would close streams at moments that differ with the cut.
            try session.pendingOutput { _ in true }
        } catch {
            recorder.flush()
            recorder.events.append("session failed")
        }
        recorder.flush()
        return recorder.events
    }

    /// Body bytes so far become one event per stream, so that pieces cut them alike.
    func flush() {
        for stream in body.keys.sorted() where !(body[stream]?.isEmpty ?? true) {
            events.append("data \(stream) \(body[stream]!.count) \(FuzzSplits.fnv1a(body[stream]!))")
        }
        body = [:]
    }

    private func known(_ stream: Int32) {
        FuzzCheck.require(stream == 1 || stream == 3, "an event for stream \(stream), which the client never opened")
    }

    func session(header name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream: Int32) -> Bool {
        known(stream)
        flush()
        events.append("header \(stream) \(Array(name)) \(Array(value))")
        return true
    }

    func session(headersEndedOn stream: Int32, endStream: Bool) {
        known(stream)
        flush()
        events.append("headers end \(stream) \(endStream)")
    }

    func session(data: UnsafeRawBufferPointer, stream: Int32) {
        known(stream)
        body[stream, default: []] += Array(data)
    }

    func session(dataEndedOn stream: Int32) {
        known(stream)
        flush()
        events.append("data end \(stream)")
    }

    func session(streamClosed stream: Int32, errorCode: UInt32) {
        flush()
        events.append("closed \(stream) \(errorCode)")
    }

    func session(goAwayWithLastStream lastStream: Int32, errorCode: UInt32, debug: String) {
        flush()
        events.append("goaway \(lastStream) \(errorCode)")
    }

    func session(settingsWithMaxConcurrentStreams max: Int?) {
        flush()
        events.append("settings \(String(describing: max))")
    }

    func sessionReceivedPingAcknowledgement() {
        flush()
        events.append("ping ack")
    }

    func sessionReceivedControlFrame() -> Bool { true }

    func session(readBodyOf stream: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.BodyRead {
        FuzzCheck.require(stream == 3, "the body of stream \(stream) asked for")
        let count = min(uploadLeft, buffer.count)
        for i in 0..<count { buffer[i] = UInt8(i) }
        uploadLeft -= count
        return .bytes(count, last: uploadLeft == 0)
    }

    func session(error message: String) {}

    func session(invalidFrameOn stream: Int32, reason: String) {
        flush()
        events.append("invalid \(stream)")
    }
}
