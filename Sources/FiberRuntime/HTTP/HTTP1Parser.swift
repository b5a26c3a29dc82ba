import CLLHTTP

/// The one owner of an llhttp parser (strict mode): it holds `llhttp_t` (`fiber_llhttp_t`, see CLLHTTP's shim.h) and
/// its settings at stable addresses, finds itself from llhttp's callbacks
/// through `parser->data`, enforces the header-size limit inside those
/// callbacks, and maps llhttp's errors to `HTTPClientError` in one place.
///
/// `feed` parses bytes straight from the caller's buffer and reports what it
/// found as events; body events are ranges of that same buffer, so no body
/// byte is copied here. Parsing pauses at the end of every message: the caller
/// sees `.end`, decides (a 1xx interim response, keep-alive, pipelining) and
/// feeds the rest of the buffer, if any, again.
package final class HTTP1Parser {
    package enum Mode: Sendable { case request, response }

    package enum Event {
        case head(HTTP1Head)
        /// Body bytes: a range of the buffer given to `feed`.
        case body(Range<Int>)
        /// The message is complete, with its trailer fields (chunked bodies only).
        case end(trailers: HTTPHeaders)
    }

    /// What a call to `feed` did.
    package enum Outcome: Equatable {
        /// Every byte was consumed; the message goes on.
        case needMore
        /// A message ended after `consumed` bytes; call `feed` with the rest to go on.
        case messageEnded(consumed: Int)
        /// A `101 Switching Protocols` (or CONNECT) ended after `consumed` bytes; the rest belongs to the new protocol.
        case upgraded(consumed: Int)
    }

    package let mode: Mode
    /// Set before a response to a HEAD request: its head announces a body that never comes.
    package var expectsNoBody = false
    package let maxHeaderBytes: Int
    /// Whether llhttp will read another message after the one that just ended. A
    /// `Connection: close` in a trailer section ends the connection for llhttp (it
    /// reads nothing after) though the head said keep-alive.
    package private(set) var keepsConnection = true

    private let parser: UnsafeMutablePointer<fiber_llhttp_t>
    private let settings: UnsafeMutablePointer<fiber_llhttp_settings_t>
    // The callbacks' state. Unchecked for exclusivity: llhttp calls back only
    // from inside `feed`/`finish`, one callback at a time on the caller's
    // thread, so no two accesses can overlap; the dynamic check cost more per
    // header field than parsing it.
    @exclusivity(unchecked) private var events: [Event] = []
    @exclusivity(unchecked) private var base: UnsafePointer<CChar>?
    @exclusivity(unchecked) private var head = HTTP1Head()
    @exclusivity(unchecked) private var trailers = HTTPHeaders()
    @exclusivity(unchecked) private var inTrailers = false
    @exclusivity(unchecked) private var fieldName: [UInt8] = []
    @exclusivity(unchecked) private var fieldValue: [UInt8] = []
    @exclusivity(unchecked) private var reasonOrTarget: [UInt8] = []
    @exclusivity(unchecked) private var headerBytes = 0
    @exclusivity(unchecked) private var limitExceeded = false

    package init(mode: Mode, maxHeaderBytes: Int = 64 * 1024) {
        self.mode = mode
        self.maxHeaderBytes = maxHeaderBytes
        parser = .allocate(capacity: 1)
        settings = .allocate(capacity: 1)
        llhttp_settings_init(settings)
        installCallbacks()
        llhttp_init(parser, mode == .request ? HTTP_REQUEST : HTTP_RESPONSE, settings)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        parser.deallocate()
        settings.deallocate()
    }

    /// Parses `buffer`, then calls `handle` with each event in order.
    ///
    /// - Throws: `HTTPClientError` `.malformedResponse` (with llhttp's reason) or
    ///   `.headersTooLarge`; the connection must then be closed.
    package func feed(_ buffer: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws -> Outcome {
        events.removeAll(keepingCapacity: true)
        let start = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
        base = start
        let status = llhttp_execute(parser, start, buffer.count)
        base = nil
        let consumed: Int
        if status == HPE_OK {
            consumed = buffer.count
        } else if let position = llhttp_get_error_pos(parser), let start {
            consumed = position - start
        } else {
            consumed = buffer.count
        }
        let outcome: Outcome
        switch status {
        case HPE_OK:
            outcome = .needMore
        case HPE_PAUSED:
            llhttp_resume(parser)
            outcome = .messageEnded(consumed: consumed)
        case HPE_PAUSED_UPGRADE:
            outcome = .upgraded(consumed: consumed)
        default:
            throw error(for: status)
        }
        for event in events { try handle(event) }
        return outcome
    }

    /// How `feedResponses` stopped.
    package enum ResponsesStop: Equatable {
        /// Every byte was consumed (or the reader stopped caring); the message goes on.
        case needMore
        /// `messageEnded` said not to read on; `bytesLeft` when bytes followed the message.
        case stopped(bytesLeft: Bool)
        /// The peer switched protocols, which a response to an HTTP request cannot do.
        case upgraded
    }

    /// Feeds `bytes` one message after another, as a connection reads them:
    /// events go to `handle` with the bytes they point into; after each complete
    /// message, `messageEnded(bytesFollow)` says whether to go on parsing the
    /// bytes after it. `isCurrent` is asked before each message, so a reader
    /// whose exchange ended in a handler stops there.
    ///
    /// - Throws: what `feed` or `handle` throws.
    package func feedResponses(
        _ bytes: UnsafeRawBufferPointer, while isCurrent: () -> Bool,
        handle: (Event, UnsafeRawBufferPointer) throws -> Void, messageEnded: (_ bytesFollow: Bool) -> Bool
    ) throws -> ResponsesStop {
        var rest = bytes
        while !rest.isEmpty, isCurrent() {
            let buffer = rest
            switch try feed(buffer, { try handle($0, buffer) }) {
            case .needMore:
                return .needMore
            case .messageEnded(let consumed):
                rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
                if messageEnded(!rest.isEmpty) { continue }
                return .stopped(bytesLeft: !rest.isEmpty)
            case .upgraded:
                return .upgraded
            }
        }
        return .needMore
    }

    /// Tells the parser the peer closed: a close-delimited body ends here.
    ///
    /// - Returns: true if that completed a message (its `.end` is passed to `handle`).
    /// - Throws: `HTTPClientError` `.connectionClosed` when a message was cut short.
    package func finish(_ handle: (Event) throws -> Void) throws -> Bool {
        events.removeAll(keepingCapacity: true)
        let status = llhttp_finish(parser)
        guard status == HPE_OK || status == HPE_PAUSED else {
            throw HTTPClientError(.connectionClosed, llhttpReason(status))
        }
        for event in events { try handle(event) }
        return events.contains { if case .end = $0 { true } else { false } }
    }


    private func error(for status: llhttp_errno_t) -> HTTPClientError {
        if limitExceeded {
            return HTTPClientError(.headersTooLarge, "more than \(maxHeaderBytes) bytes of headers")
        }
        return HTTPClientError(.malformedResponse, llhttpReason(status))
    }

    private func llhttpReason(_ status: llhttp_errno_t) -> String {
        let name = String(cString: llhttp_errno_name(status))
        let reason = llhttp_get_error_reason(parser).map { String(cString: $0) } ?? ""
        return reason.isEmpty ? name : "\(reason) (\(name))"
    }

    // MARK: Callbacks, as methods of the owner

    private func countHeaderBytes(_ n: Int) -> Bool {
        headerBytes += n
        if headerBytes > maxHeaderBytes { limitExceeded = true }
        return !limitExceeded
    }

    fileprivate func onMessageBegin() -> Int32 {
        head = HTTP1Head()
        head.headers.reserveCapacity(8)  // a typical response head has 4 to 8 fields
        trailers = HTTPHeaders()
        inTrailers = false
        headerBytes = 0
        reasonOrTarget.removeAll(keepingCapacity: true)
        return 0
    }

    fileprivate func onText(_ p: UnsafePointer<CChar>?, _ n: Int) -> Int32 {
        guard countHeaderBytes(n), let p else { return -1 }
        reasonOrTarget.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
        return 0
    }

    fileprivate func onField(_ p: UnsafePointer<CChar>?, _ n: Int) -> Int32 {
        guard countHeaderBytes(n), let p else { return -1 }
        fieldName.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
        return 0
    }

    fileprivate func onValue(_ p: UnsafePointer<CChar>?, _ n: Int) -> Int32 {
        guard countHeaderBytes(n), let p else { return -1 }
        fieldValue.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
        return 0
    }

    fileprivate func onValueComplete() -> Int32 {
        let name = String(decoding: fieldName, as: UTF8.self)
        let value = String(decoding: fieldValue, as: UTF8.self)
        if inTrailers { trailers.append(name: name, value: value) } else { head.headers.append(name: name, value: value) }
        fieldName.removeAll(keepingCapacity: true)
        fieldValue.removeAll(keepingCapacity: true)
        return 0
    }

    fileprivate func onHeadersComplete() -> Int32 {
        let p = parser.pointee
        head.version = (Int(p.http_major), Int(p.http_minor))
        head.keepAlive = llhttp_should_keep_alive(parser) == 1
        if mode == .response {
            head.status = Int(p.status_code)
            head.reason = String(decoding: reasonOrTarget, as: UTF8.self)
        } else {
            head.method = String(cString: llhttp_method_name(llhttp_method_t(UInt32(p.method))))
            head.target = String(decoding: reasonOrTarget, as: UTF8.self)
        }
        if p.flags & UInt16(F_CONTENT_LENGTH.rawValue) != 0 { head.contentLength = Int(clamping: p.content_length) }
        events.append(.head(head))
        inTrailers = true
        headerBytes = 0
        // 1: llhttp skips the body. A response to HEAD, a 1xx, a 204 and a 304 have
        // none, whatever their head says (RFC 9112 §6.3 rule 1); llhttp reads one
        // when a 204 or 304 declares a length. It judged keep-alive before knowing
        // that (a head with no framing looks close-delimited).
        if mode == .response, HTTP1ConnectionStateMachine.responseEndsWithHead(status: head.status, toHEAD: expectsNoBody) {
            let connection = head.headers
            head.keepAlive = head.version.major == 1 && head.version.minor >= 1
                ? !connection.containsToken("close", in: "Connection")
                : connection.containsToken("keep-alive", in: "Connection")
            head.hasNoBody = true
            events[events.count - 1] = .head(head)
            return 1
        }
        return 0
    }

    fileprivate func onBody(_ p: UnsafePointer<CChar>?, _ n: Int) -> Int32 {
        guard let p, let base else { return -1 }
        let offset = p - base
        events.append(.body(offset..<(offset + n)))
        return 0
    }

    fileprivate func onMessageComplete() -> Int32 {
        keepsConnection = llhttp_should_keep_alive(parser) == 1
        events.append(.end(trailers: trailers))
        inTrailers = false
        headerBytes = 0
        return Int32(HPE_PAUSED.rawValue)
    }

    private func installCallbacks() {
        func owner(_ p: UnsafeMutablePointer<fiber_llhttp_t>?) -> HTTP1Parser {
            Unmanaged<HTTP1Parser>.fromOpaque(p!.pointee.data).takeUnretainedValue()
        }
        settings.pointee.on_message_begin = { owner($0).onMessageBegin() }
        settings.pointee.on_status = { owner($0).onText($1, $2) }
        settings.pointee.on_url = { owner($0).onText($1, $2) }
        settings.pointee.on_header_field = { owner($0).onField($1, $2) }
        settings.pointee.on_header_value = { owner($0).onValue($1, $2) }
        settings.pointee.on_header_value_complete = { owner($0).onValueComplete() }
        settings.pointee.on_headers_complete = { owner($0).onHeadersComplete() }
        settings.pointee.on_body = { owner($0).onBody($1, $2) }
        settings.pointee.on_message_complete = { owner($0).onMessageComplete() }
    }
}
