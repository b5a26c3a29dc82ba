@testable import FiberRuntime

/// The HTTP/1.1 response reader: `HTTP1Parser` (llhttp) with the rules of
/// `HTTP1ConnectionStateMachine`, driven as `HTTP1Connection` drives them.
///
/// Input: one options byte (bit 0: the request was HEAD; bit 1: the body is
/// collected with a 1 KiB limit; bit 2: a 200-byte header limit), then the
/// bytes the server sent, after which it closes.
///
/// Rules: the bytes fed whole and fed in pieces give the same heads, body,
/// trailers and outcome (or both fail); a final response never reports more
/// body bytes than its `Content-Length`, and exactly that many when it
/// completes; a response that ends with its head reports none; a collected
/// body never passes its limit; an interim response's body is never reported.
enum HTTP1ResponseFuzz {
    static let target = FuzzTarget(name: "http1-response", run: run, seeds: HTTP1ResponseSeeds.all)

    struct Options {
        var toHEAD: Bool
        var collectLimit: Int?
        var maxHeaderBytes: Int

        init(_ byte: UInt8) {
            toHEAD = byte & 1 != 0
            collectLimit = byte & 2 != 0 ? 1024 : nil
            maxHeaderBytes = byte & 4 != 0 ? 200 : 64 * 1024
        }
    }

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let options = Options(first)
        let bytes = Array(input.dropFirst())
        let whole = HTTP1ResponseReader(options).read([0..<bytes.count], of: bytes)
        let split = HTTP1ResponseReader(options).read(Array(FuzzSplits(input: bytes)), of: bytes)
        for reading in [whole, split] { reading.checkFraming(options) }
        switch (whole.outcome, split.outcome) {
        case (.failed, .failed):
            break  // Events before a failure depend on where reads fall (a failing read reports none).
        case (.failed(let error), _), (_, .failed(let error)):
            FuzzCheck.fail("one feeding failed (\(error)), the other did not:\n whole \(whole)\n split \(split)")
        default:
            FuzzCheck.require(whole == split, "whole and split readings differ:\n whole \(whole)\n split \(split)")
        }
    }
}

/// What a reader saw, comparable across feedings.
struct HTTP1Reading: Equatable, CustomStringConvertible {
    enum Record: Equatable {
        case head(HTTP1Head, hasNoBody: Bool)
        /// Body bytes of one message, adjacent pieces merged.
        case body([UInt8])
        case end(trailers: HTTPHeaders)
    }

    enum Outcome: Equatable {
        /// The response was complete; `release` when the rules decided on the connection then.
        case complete(release: HTTP1ConnectionStateMachine.Release?)
        case failed(HTTPClientError.Kind)
        /// The bytes ended (the peer closed) with the exchange still waiting.
        case incomplete
    }

    var records: [Record] = []
    var outcome: Outcome = .incomplete
    /// Bytes left after the response completed (whether they spoil reuse depends on the reads).
    var bytesAfterResponse = false

    static func == (a: HTTP1Reading, b: HTTP1Reading) -> Bool {
        guard a.records == b.records else { return false }
        switch (a.outcome, b.outcome) {
        // A response followed by more bytes: only a read that carries both sees them together.
        case (.complete, .complete) where a.bytesAfterResponse || b.bytesAfterResponse: return true
        default: return a.outcome == b.outcome
        }
    }

    var description: String { "\(outcome) \(records)" }

    mutating func append(body part: UnsafeRawBufferPointer) {
        if case .body(let earlier) = records.last {
            records[records.count - 1] = .body(earlier + part)
        } else {
            records.append(.body(Array(part)))
        }
    }

    /// The framing rules every reading keeps, whatever the bytes.
    func checkFraming(_ options: HTTP1ResponseFuzz.Options) {
        var head: (HTTP1Head, Bool)?
        var bodyCount = 0
        for record in records {
            switch record {
            case .head(let h, let hasNoBody):
                head = (h, hasNoBody)
                bodyCount = 0
                if (100..<200).contains(h.status) || h.status == 204 || h.status == 304 || options.toHEAD {
                    FuzzCheck.require(hasNoBody, "status \(h.status) (HEAD: \(options.toHEAD)) must end with its head")
                }
            case .body(let bytes):
                guard let (h, hasNoBody) = head else { FuzzCheck.fail("body before any head") }
                FuzzCheck.require(!hasNoBody, "a body reported for a response that ends with its head (\(h.status))")
                FuzzCheck.require(!(100..<200).contains(h.status), "an interim response's body reported")
                bodyCount += bytes.count
                if let length = h.contentLength {
                    FuzzCheck.require(bodyCount <= length, "\(bodyCount) body bytes past Content-Length \(length)")
                }
                if let limit = options.collectLimit {
                    FuzzCheck.require(bodyCount <= limit, "\(bodyCount) body bytes past the collect limit \(limit)")
                }
            case .end:
                if let (h, hasNoBody) = head, !hasNoBody, let length = h.contentLength, !(100..<200).contains(h.status) {
                    FuzzCheck.require(bodyCount == length, "ended after \(bodyCount) body bytes, Content-Length \(length)")
                }
            }
        }
        if case .complete = outcome {
            guard let (h, _) = head else { FuzzCheck.fail("complete without a head") }
            FuzzCheck.require(h.status >= 200, "complete on an interim head \(h.status)")
        }
    }
}

/// `HTTP1Connection`'s reading loop without the socket: the same calls to the
/// parser and the rules in the same order, recording what a caller would see.
final class HTTP1ResponseReader {
    private let parser: HTTP1Parser
    private var rules = HTTP1ConnectionStateMachine()
    private let exchange: HTTP1ConnectionStateMachine.ExchangeID
    private var reading = HTTP1Reading()
    private var done = false

    init(_ options: HTTP1ResponseFuzz.Options) {
        parser = HTTP1Parser(mode: .response, maxHeaderBytes: options.maxHeaderBytes)
        parser.expectsNoBody = options.toHEAD
        let bounds = ExchangeBounds(readIdle: nil, responseHead: nil, deadline: nil, maxInterimResponses: 3)
        let request = HTTP1ConnectionStateMachine.Request(isIdempotent: true, collectLimit: options.collectLimit, bounds: bounds)
        do {
            (exchange, _) = try rules.begin(request)
        } catch {
            FuzzCheck.fail("a new connection refused its first exchange: \(error)")
        }
        _ = rules.requestSent(exchange, whole: true, now: .now())
    }

    /// Feeds `bytes` in the pieces `reads`, then the peer's close.
    func read(_ reads: [Range<Int>], of bytes: [UInt8]) -> HTTP1Reading {
        bytes.withUnsafeBytes { all in
            for range in reads where !done {
                let (inbound, failure) = rules.bytesArrived(count: range.count)
                if let failure { fail(failure.error); break }
                if inbound == .parse { receive(UnsafeRawBufferPointer(rebasing: all[range])) }
            }
            if !done { peerClosed() }
        }
        return reading
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        // The connection's own loop over the messages in a read.
        let stop: HTTP1Parser.ResponsesStop
        do {
            stop = try parser.feedResponses(bytes, while: { !done }, handle: { try handle($0, bytes: $1) },
                                            messageEnded: { messageEnded(bytesFollow: $0, byClose: false) })
        } catch {
            fail(error as? HTTPClientError ?? HTTPClientError(.malformedResponse, "\(error)"))
            return
        }
        switch stop {
        case .needMore: break
        case .stopped(let bytesLeft): if bytesLeft { reading.bytesAfterResponse = true }
        case .upgraded: fail(HTTPClientError(.malformedResponse, "switched protocols"))
        }
    }

    private func peerClosed() {
        let (inbound, failure) = rules.peerClosed()
        if let failure { fail(failure.error); return }
        guard inbound == .parse else { return }
        do {
            let ended = try parser.finish { try handle($0, bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }
            if ended {
                messageEnded(bytesFollow: false, byClose: true)
            } else if let failure = rules.closedMidResponse() {
                fail(failure.error)
            }
        } catch {
            fail(error as? HTTPClientError ?? HTTPClientError(.connectionClosed))
        }
    }

    private func handle(_ event: HTTP1Parser.Event, bytes: UnsafeRawBufferPointer) throws {
        switch event {
        case .head(let head):
            _ = try rules.receivedHead(status: head.status, keepAlive: head.keepAlive, hasNoBody: head.hasNoBody,
                                       contentLength: head.contentLength)
            reading.records.append(.head(head, hasNoBody: head.hasNoBody))
        case .body(let range):
            guard !rules.isInInterimResponse else { return }
            guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
                FuzzCheck.fail("body range \(range) outside the \(bytes.count)-byte buffer")
            }
            let part = UnsafeRawBufferPointer(rebasing: bytes[range])
            _ = try rules.receivedBody(count: part.count)
            reading.append(body: part)
        case .end(let trailers):
            if !rules.isInInterimResponse { reading.records.append(.end(trailers: trailers)) }
        }
    }

    @discardableResult
    private func messageEnded(bytesFollow: Bool, byClose: Bool) -> Bool {
        switch rules.messageEnded(bytesFollow: bytesFollow, byClose: byClose, parserKeepsConnection: parser.keepsConnection) {
        case .parseNext?:
            return true
        case .responseComplete(let release)?:
            reading.outcome = .complete(release: release)
            done = true
            return false
        case nil:
            return false
        }
    }

    private func fail(_ error: HTTPClientError) {
        _ = rules.fail(error)
        reading.outcome = .failed(error.kind)
        done = true
    }
}
