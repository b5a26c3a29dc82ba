@testable import FiberRuntime
import Testing

@Suite("HTTP/1.1 connection state machine")
struct HTTP1ConnectionStateMachineTests {
    typealias SM = HTTP1ConnectionStateMachine
    let t0 = MonotonicTime.now()

    static func request(idempotent: Bool = true, collect: Int? = 1 << 20, readIdle: Duration? = .seconds(10),
                        head: Duration? = nil, interims: Int = 4) -> SM.Request {
        SM.Request(isIdempotent: idempotent, collectLimit: collect,
                   bounds: ExchangeBounds(readIdle: readIdle, responseHead: head, deadline: nil, maxInterimResponses: interims))
    }

    /// Runs one whole exchange with a 200 and a body; returns how the connection was released.
    static func completeExchange(_ sm: inout SM, keepAlive: Bool = true) -> SM.Release? {
        guard let (id, _) = try? sm.begin(request()) else { return nil }
        sm.wroteRequestBytes(id)
        _ = sm.requestSent(id, whole: true, now: .now())
        _ = sm.bytesArrived(count: 10)
        _ = try? sm.receivedHead(status: 200, keepAlive: keepAlive, hasNoBody: false, contentLength: 2)
        _ = try? sm.receivedBody(count: 2)
        guard case .responseComplete(let release)? = sm.messageEnded(bytesFollow: false) else { return nil }
        return release
    }

    // MARK: Framing

    @Test(arguments: [100, 101, 103, 199, 200, 204, 205, 206, 299, 301, 304, 404, 500])
    func whichResponsesEndWithTheirHead(status: Int) {
        #expect(SM.responseEndsWithHead(status: status, toHEAD: true))
        let bodiless = (100..<200).contains(status) || status == 204 || status == 304
        #expect(SM.responseEndsWithHead(status: status, toHEAD: false) == bodiless)
    }

    @Test func interimResponsesAreSkippedUpToTheLimit() throws {
        var sm = SM()
        _ = try sm.begin(Self.request(interims: 2))
        for _ in 0..<2 {
            #expect(try sm.receivedHead(status: 100, keepAlive: true, hasNoBody: true, contentLength: nil) == .interim)
            #expect(sm.isInInterimResponse)
            #expect(sm.messageEnded(bytesFollow: true) == .parseNext)
            #expect(!sm.isInInterimResponse)
        }
        #expect(throws: HTTPClientError.self) {
            try sm.receivedHead(status: 103, keepAlive: true, hasNoBody: true, contentLength: nil)
        }
    }

    @Test func aSwitchingProtocolsHeadIsRefused() throws {
        var sm = SM()
        _ = try sm.begin(Self.request())
        do {
            _ = try sm.receivedHead(status: 101, keepAlive: true, hasNoBody: true, contentLength: nil)
            Issue.record("a 101 was accepted")
        } catch {
            #expect(error.kind == .malformedResponse)
        }
    }

    @Test func aCollectedBodyIsBoundedByItsDeclaredLengthAndByWhatArrives() throws {
        var sm = SM()
        _ = try sm.begin(Self.request(collect: 10))
        do {
            _ = try sm.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: 11)
            Issue.record("a declared length over the limit was accepted")
        } catch {
            #expect(error.kind == .bodyTooLarge)
        }

        var counted = SM()
        _ = try counted.begin(Self.request(collect: 10))
        _ = try counted.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: nil)
        #expect(try counted.receivedBody(count: 6) == 6)
        #expect(try counted.receivedBody(count: 4) == 10)
        #expect(throws: HTTPClientError.self) { try counted.receivedBody(count: 1) }

        // A bodiless response's length describes the representation, not bytes to come.
        var bodiless = SM()
        _ = try bodiless.begin(Self.request(collect: 10))
        #expect(try bodiless.receivedHead(status: 304, keepAlive: true, hasNoBody: true, contentLength: 5000) == .final)

        // A streamed body has no limit here (its buffer applies backpressure).
        var streamed = SM()
        _ = try streamed.begin(Self.request(collect: nil))
        _ = try streamed.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: 1 << 40)
        #expect(try streamed.receivedBody(count: 1 << 30) == 1 << 30)
    }

    // MARK: Reuse

    /// Every combination of the four conditions, with the response ending
    /// before or after the request is out: reusable only when all hold.
    @Test(arguments: [false, true], [false, true])
    func reuseNeedsKeepAliveAWholeRequestNoTrailingBytesAndNoClose(keepAlive: Bool, responseFirst: Bool) throws {
        for sentWhole in [false, true] {
            for bytesFollow in [false, true] {
                for byClose in [false, true] {
                    var sm = SM()
                    let (id, _) = try sm.begin(Self.request())
                    sm.wroteRequestBytes(id)
                    if !responseFirst { #expect(sm.requestSent(id, whole: sentWhole, now: t0) == .none) }
                    #expect(sm.bytesArrived(count: 1).0 == .parse)
                    #expect(try sm.receivedHead(status: 200, keepAlive: keepAlive, hasNoBody: false, contentLength: nil) == .final)
                    let end = sm.messageEnded(bytesFollow: bytesFollow, byClose: byClose)
                    let release: SM.Release?
                    if responseFirst {
                        #expect(end == .responseComplete(release: nil))
                        #expect(!sm.wantsRequestBody(id), "the request body stops once the response is complete")
                        guard case .release(let after) = sm.requestSent(id, whole: sentWhole, now: t0) else {
                            Issue.record("the send side did not release the connection")
                            continue
                        }
                        release = after
                    } else {
                        guard case .responseComplete(let after)? = end else {
                            Issue.record("the response did not complete")
                            continue
                        }
                        release = after
                    }
                    let reusable = keepAlive && sentWhole && !bytesFollow && !byClose
                    #expect(release == (reusable ? .reuse(resumeReading: false) : .close),
                            "keepAlive \(keepAlive) whole \(sentWhole) follow \(bytesFollow) close \(byClose)")
                    #expect(sm.isIdle == reusable)
                    #expect(sm.completedExchanges == 1)
                    if !reusable {
                        #expect(throws: HTTPClientError.self) { try sm.begin(Self.request()) }
                    }
                }
            }
        }
    }

    @Test func bytesAfterACompleteResponseWhileTheRequestGoesOutSpoilReuse() throws {
        var sm = SM()
        let (id, _) = try sm.begin(Self.request())
        _ = try sm.receivedHead(status: 200, keepAlive: true, hasNoBody: true, contentLength: nil)
        #expect(sm.messageEnded(bytesFollow: false) == .responseComplete(release: nil))
        #expect(sm.bytesArrived(count: 3).0 == .ignore)
        #expect(sm.requestSent(id, whole: true, now: t0) == .release(.close))
    }

    @Test func aPausedReaderResumesWhenItsConnectionGoesBackToThePool() throws {
        var sm = SM()
        let (id, _) = try sm.begin(Self.request(collect: nil))
        _ = sm.requestSent(id, whole: true, now: t0)
        _ = try sm.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: 4)
        #expect(sm.consumerChanged(id, reading: false, now: t0) == .pause)
        _ = try sm.receivedBody(count: 4)
        #expect(sm.messageEnded(bytesFollow: false) == .responseComplete(release: .reuse(resumeReading: true)))
    }

    @Test func anIdleConnectionFailsOnBytesOrClose() {
        var bytes = SM()
        let (inbound, failure) = bytes.bytesArrived(count: 5)
        #expect(inbound == .ignore)
        #expect(failure?.error.kind == .malformedResponse)
        #expect(failure?.exchange == nil)

        var closed = SM()
        #expect(closed.peerClosed().1?.error.kind == .connectionClosed)
        // Closed once: later news is ignored.
        #expect(closed.peerClosed().1 == nil)
        #expect(closed.fail(HTTPClientError(.shutdown)) == nil)
    }

    @Test func lateNewsOfAnEarlierExchangeIsIgnored() throws {
        var sm = SM()
        let (first, _) = try sm.begin(Self.request())
        _ = sm.requestSent(first, whole: true, now: t0)
        _ = try sm.receivedHead(status: 200, keepAlive: true, hasNoBody: true, contentLength: nil)
        #expect(sm.messageEnded(bytesFollow: false) == .responseComplete(release: .reuse(resumeReading: false)))
        let (second, _) = try sm.begin(Self.request())
        #expect(second != first)
        #expect(sm.cancelled(first) == nil)
        #expect(sm.bodyAbandoned(first) == nil)
        #expect(sm.requestSent(first, whole: true, now: t0) == .none)
        #expect(sm.consumerChanged(first, reading: false, now: t0) == .none)
        #expect(sm.cancelled(second)?.exchange == second)
    }

    // MARK: Retry on a new connection

    /// Every combination: a retry is offered only for a reused connection
    /// that closed or failed before any response byte, with a request that is
    /// idempotent or was not written at all.
    @Test(arguments: [HTTPClientError.Kind.connectionClosed, .transport, .readTimeout, .malformedResponse, .cancelled])
    func retryOnANewConnectionOnlyWhenTheServerProbablyClosedAnIdleConnection(kind: HTTPClientError.Kind) throws {
        for reused in [false, true] {
            for idempotent in [false, true] {
                for wrote in [false, true] {
                    for sawBytes in [false, true] {
                        var sm = SM()
                        if reused { #expect(Self.completeExchange(&sm) == .reuse(resumeReading: false)) }
                        let (id, _) = try sm.begin(Self.request(idempotent: idempotent))
                        if wrote { sm.wroteRequestBytes(id) }
                        if sawBytes { _ = sm.bytesArrived(count: 1) }
                        let failure = sm.fail(HTTPClientError(kind))
                        #expect(failure?.exchange == id)
                        let expected = reused && !sawBytes && (idempotent || !wrote) && (kind == .connectionClosed || kind == .transport)
                        #expect(failure?.error.mayRetryOnNewConnection == expected,
                                "\(kind) reused \(reused) idempotent \(idempotent) wrote \(wrote) bytes \(sawBytes)")
                    }
                }
            }
        }
    }

    @Test func aTruncatedTLSConnectionCountsAsClosed() throws {
        var sm = SM()
        _ = Self.completeExchange(&sm)
        _ = try sm.begin(Self.request())
        let truncated = HTTPClientError(.tls, transport: .tls(TLSError(.truncated, "no close_notify"), operation: "read"))
        #expect(sm.transportFailed(truncated)?.error.mayRetryOnNewConnection == true)
    }

    @Test func closingMidResponseSaysWhere() throws {
        var beforeHead = SM()
        _ = try beforeHead.begin(Self.request())
        #expect(beforeHead.peerClosed().0 == .parse)
        #expect(beforeHead.closedMidResponse()?.error.detail == "before the response head")

        var midBody = SM()
        _ = try midBody.begin(Self.request())
        _ = try midBody.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: 10)
        #expect(midBody.closedMidResponse()?.error.detail == "in the middle of the body")
    }

    @Test func aSendFailureAfterACompleteResponseClosesWithoutFailingIt() throws {
        var sm = SM()
        let (id, _) = try sm.begin(Self.request())
        _ = try sm.receivedHead(status: 413, keepAlive: true, hasNoBody: true, contentLength: nil)
        _ = sm.messageEnded(bytesFollow: false)
        let (release, failure) = sm.sendFailed(id, HTTPClientError(.transport))
        #expect(release == .close)
        #expect(failure == nil)

        var early = SM()
        let (other, _) = try early.begin(Self.request())
        let (none, failed) = early.sendFailed(other, HTTPClientError(.transport))
        #expect(none == nil)
        #expect(failed?.exchange == other)
    }

    // MARK: Timers

    /// While the peer keeps acknowledging the request's bytes (a long upload over a slow
    /// link), the read-idle timer starts again instead of failing; once nothing moves,
    /// its failure stands. Without a mark (no body handed over) nothing is extended.
    @Test func anUploadThePeerIsTakingIsNotIdle() throws {
        var sm = SM()
        let (id, timer) = try sm.begin(Self.request(readIdle: .seconds(1), head: .seconds(60)))
        #expect(timer == .idle(.seconds(1)))
        sm.wroteRequestBytes(id)
        sm.requestHandedOver(id, unacknowledged: 4_000_000)
        #expect(sm.readTimerFired(unacknowledged: 3_800_000, now: t0) == .idle(.seconds(1)))
        #expect(sm.readTimerFired(unacknowledged: 3_600_000, now: t0) == .idle(.seconds(1)))
        #expect(sm.readTimerFired(unacknowledged: 0, now: t0) == .idle(.seconds(1)), "the last bytes were taken in this period")
        #expect(sm.readTimerFired(unacknowledged: 0, now: t0) == nil, "nothing moved for a whole period")
        #expect(sm.readTimerFired()?.error.kind == .readTimeout)

        var stalled = SM()
        let (other, _) = try stalled.begin(Self.request(readIdle: .seconds(1)))
        stalled.requestHandedOver(other, unacknowledged: 500_000)
        #expect(stalled.readTimerFired(unacknowledged: 500_000, now: t0) == nil, "a link that went down moves nothing")

        var bodiless = SM()
        _ = try bodiless.begin(Self.request(readIdle: .seconds(1)))
        #expect(bodiless.readTimerFired(unacknowledged: 0, now: t0) == nil, "no mark: the timeout is not extended")
    }

    @Test func oneTimerServesReadIdleAndTheHeadDeadlineWhicheverComesFirst() throws {
        var sm = SM()
        let (id, timer) = try sm.begin(Self.request(readIdle: .seconds(10), head: .seconds(3)))
        #expect(timer == .idle(.seconds(10)), "until the request is out, only read-idle runs")
        #expect(sm.requestSent(id, whole: true, now: t0) == .setReadTimer(.headDeadline(.seconds(3))))
        #expect(sm.readTimer(now: t0 + .seconds(1)) == .headDeadline(.seconds(2)))
        #expect(sm.readTimerFired()?.error.kind == .responseHeadTimeout)

        var idleFirst = SM()
        let (other, _) = try idleFirst.begin(Self.request(readIdle: .seconds(2), head: .seconds(30)))
        #expect(idleFirst.requestSent(other, whole: true, now: t0) == .setReadTimer(.idle(.seconds(2))))
        _ = try idleFirst.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: nil)
        #expect(idleFirst.readTimer(now: t0) == .idle(.seconds(2)))
        #expect(idleFirst.consumerChanged(other, reading: false, now: t0) == .pause)
        #expect(idleFirst.readTimer(now: t0) == .stopped, "no read-idle timeout while the consumer holds reading")
        #expect(idleFirst.consumerChanged(other, reading: true, now: t0) == .resume(.idle(.seconds(2))))
        #expect(idleFirst.readTimerFired()?.error.kind == .readTimeout)

        var off = SM()
        let (third, none) = try off.begin(Self.request(readIdle: nil, head: nil))
        #expect(none == .stopped)
        #expect(off.requestSent(third, whole: true, now: t0) == .none)
        #expect(off.deadlineFired()?.error.kind == .deadlineExceeded)
    }

    /// While the body's own source is asked for a chunk, the silence is this side's: no
    /// read-idle timer; it runs again from zero with the chunk, and bytes from the server
    /// meanwhile do not restart it.
    @Test func theReadIdleTimerWaitsWhileTheBodySourceDoes() throws {
        var sm = SM()
        let (id, timer) = try sm.begin(Self.request(readIdle: .seconds(10), head: nil))
        #expect(timer == .idle(.seconds(10)))
        #expect(sm.bodySource(id, waiting: true, now: t0) == .stopped)
        #expect(sm.readTimer(now: t0) == .stopped, "a read while the source is asked does not restart it")
        #expect(sm.bodySource(id, waiting: false, now: t0) == .idle(.seconds(10)))
        #expect(sm.bodySource(id + 1, waiting: true, now: t0) == nil, "another exchange's source leaves the timer alone")
        _ = sm.bodySource(id, waiting: true, now: t0)
        #expect(sm.requestSent(id, whole: true, now: t0) == .none)
        #expect(sm.readTimer(now: t0) == .idle(.seconds(10)), "once the request is out, the wait is the server's")
    }

    @Test func aPastHeadDeadlineFiresAtOnce() throws {
        var sm = SM()
        let (id, _) = try sm.begin(Self.request(readIdle: nil, head: .seconds(1)))
        _ = sm.requestSent(id, whole: true, now: t0)
        #expect(sm.readTimer(now: t0 + .seconds(5)) == .headDeadline(.zero))
    }
}

extension HTTP1ConnectionStateMachine.Failure: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.exchange == b.exchange && a.error.kind == b.error.kind && a.error.detail == b.error.detail
    }
}

extension HTTP1ConnectionStateMachineTests {
    /// A `Connection: close` in a trailer section, after a keep-alive head: the
    /// parser reads nothing more on the connection, so it is closed, not pooled.
    @Test func aParserThatReadsNoMoreClosesTheConnection() throws {
        for keeps in [false, true] {
            var sm = SM()
            let (id, _) = try sm.begin(Self.request())
            sm.wroteRequestBytes(id)
            _ = sm.requestSent(id, whole: true, now: t0)
            _ = sm.bytesArrived(count: 1)
            #expect(try sm.receivedHead(status: 200, keepAlive: true, hasNoBody: false, contentLength: nil) == .final)
            let end = sm.messageEnded(bytesFollow: false, parserKeepsConnection: keeps)
            #expect(end == .responseComplete(release: keeps ? .reuse(resumeReading: false) : .close))
        }
    }
}
