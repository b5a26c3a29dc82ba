import CNGHTTP2

/// What an `NGHTTP2Session` reports as it reads the server's frames, and asks
/// for as it writes a request body: called synchronously, on the loop, from
/// inside `receive` and `pendingOutput`.
protocol NGHTTP2SessionDelegate: AnyObject {
    /// A header field of a block on `stream`; false resets the stream.
    func session(header name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream: Int32) -> Bool
    /// A header block ended on `stream`; `endStream`: it was the stream's last frame.
    func session(headersEndedOn stream: Int32, endStream: Bool)
    /// Body bytes of `stream`, valid only during the call.
    func session(data: UnsafeRawBufferPointer, stream: Int32)
    /// The server ended `stream` with a DATA frame.
    func session(dataEndedOn stream: Int32)
    /// `stream` is closed: `errorCode` 0 when it ended normally.
    func session(streamClosed stream: Int32, errorCode: UInt32)
    func session(goAwayWithLastStream lastStream: Int32, errorCode: UInt32, debug: String)
    func session(settingsWithMaxConcurrentStreams max: Int?)
    func sessionReceivedPingAcknowledgement()
    /// A PING, SETTINGS or RST_STREAM frame; false when it is one too many.
    func sessionReceivedControlFrame() -> Bool
    /// Fills `buffer` with the next bytes of `stream`'s request body.
    func session(readBodyOf stream: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.BodyRead
    /// nghttp2's words about a protocol error it found.
    func session(error message: String)
    /// A frame of `stream` broke the protocol (a malformed response, RFC 9113 §8.1.1):
    /// nghttp2 resets the stream with PROTOCOL_ERROR (stream 0: the connection is in error).
    func session(invalidFrameOn stream: Int32, reason: String)
}

/// The one wrapper of libnghttp2's client session: its C calls and callbacks
/// stay in this file. Framing, HPACK, stream states and flow control are
/// nghttp2's; bytes come in through `receive` and go out through
/// `pendingOutput`, so the session never touches a socket. Confined to the
/// connection's loop.
final class NGHTTP2Session {
    enum BodyRead {
        /// `count` bytes were written into the buffer; `last`: the body ends with them.
        case bytes(Int, last: Bool)
        /// Nothing to send yet: `resumeBody` is called when there is.
        case deferred
    }

    struct Settings {
        var maxConcurrentStreams: Int
        var streamWindowSize: Int
        var connectionWindowSize: Int
        var maxHeaderListSize: Int
        var maxContinuationFrames: Int
    }

    private var session: OpaquePointer?
    private unowned let delegate: any NGHTTP2SessionDelegate

    /// A client session that has queued its connection preface and SETTINGS.
    ///
    /// - Throws: `HTTPClientError` `.http2` when nghttp2 cannot make the session.
    init(delegate: any NGHTTP2SessionDelegate, settings: Settings) throws(HTTPClientError) {
        self.delegate = delegate
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw HTTPClientError(.http2, "nghttp2 could not allocate its callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw HTTPClientError(.http2, "nghttp2 could not allocate its options") }
        defer { nghttp2_option_del(option) }
        // The client says when a stream's bytes were read (backpressure), so windows are not refilled on arrival.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_peer_max_concurrent_streams(option, 100)
        nghttp2_option_set_max_continuations(option, Int(settings.maxContinuationFrames))
        var made: OpaquePointer?
        let status = nghttp2_session_client_new2(&made, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard status == 0, let made else { throw Self.error(status, "could not start a session") }
        session = made
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: 100),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: UInt32(settings.streamWindowSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(clamping: settings.maxHeaderListSize)),
        ]
        try check(nghttp2_submit_settings(made, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count), "could not queue SETTINGS")
        try check(nghttp2_session_set_local_window_size(made, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                        Int32(settings.connectionWindowSize)), "could not size the connection window")
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    // MARK: Bytes in and out

    /// Reads the server's bytes; the delegate hears of what they hold before it returns.
    ///
    /// - Throws: `HTTPClientError` `.http2` when they break the protocol badly
    ///   enough that the session is over (a flood, too many CONTINUATION frames).
    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        guard let session, let base = bytes.baseAddress else { return }
        let read = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if read < 0 { throw Self.error(Int32(read), "the server's frames were refused") }
    }

    /// Hands the bytes the session has to send to `write`, one block at a
    /// time, until it has none or `write` answers false; each block is valid
    /// only during its call.
    ///
    /// - Throws: `HTTPClientError` `.http2` when the session fails while framing.
    func pendingOutput(_ write: (UnsafeRawBufferPointer) -> Bool) throws(HTTPClientError) {
        guard let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { throw Self.error(Int32(count), "could not frame what the client sends") }
            guard count > 0, let data else { return }
            if !write(UnsafeRawBufferPointer(start: data, count: count)) { return }
        }
    }

    /// False once the session has nothing more to read or write (after a
    /// GOAWAY both ways, or a fatal error): the connection can close.
    var isAlive: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // MARK: Requests

    /// Queues a request's HEADERS: `fields` holds name and value pairs, the
    /// pseudo-header fields first, all checked already. With `hasBody`, the body
    /// is read from the delegate as the peer's window allows.
    ///
    /// - Returns: the stream's ID.
    /// - Throws: `HTTPClientError` `.http2` when no stream can be opened (IDs
    ///   exhausted, the session going away).
    func submitRequest(_ fields: HTTP2FieldBlock, hasBody: Bool) throws(HTTPClientError) -> Int32 {
        guard let session else { throw HTTPClientError(.http2, "the session is closed") }
        let noIndex = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        // nghttp2 copies the fields into its own frame before it returns: pointers into
        // the block and an array of them on the stack are enough.
        let stream: Int32 = fields.bytes.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return NGHTTP2_ERR_INVALID_ARGUMENT.rawValue }
            let bytes = UnsafeMutablePointer(mutating: base)
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nva in
                for (index, span) in fields.spans.enumerated() {
                    nva.initializeElement(at: index, to: nghttp2_nv(name: bytes + span.nameStart, value: bytes + span.valueStart,
                                                                    namelen: span.nameCount, valuelen: span.valueCount, flags: noIndex))
                }
                if hasBody {
                    var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
                    return nghttp2_submit_request(session, nil, nva.baseAddress, fields.count, &provider, nil)
                }
                return nghttp2_submit_request(session, nil, nva.baseAddress, fields.count, nil, nil)
            }
        }
        if stream < 0 { throw Self.error(stream, "could not open a stream") }
        return stream
    }

    /// The delegate has body bytes again for `stream`, after `.deferred`.
    func resumeBody(of stream: Int32) {
        guard let session else { return }
        _ = nghttp2_session_resume_data(session, stream)
    }

    /// Bytes of the connection were taken off the wire: its window grows back.
    func consumeConnection(_ count: Int) {
        guard let session, count > 0 else { return }
        _ = nghttp2_session_consume_connection(session, count)
    }

    /// Bytes of `stream` were read by its consumer: the stream's window grows back.
    func consumeStream(_ stream: Int32, _ count: Int) {
        guard let session, count > 0 else { return }
        _ = nghttp2_session_consume_stream(session, stream, count)
    }

    /// Resets `stream` with `code` (`CANCEL` = 8 for a request given up).
    func reset(_ stream: Int32, code: UInt32) {
        guard let session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code)
    }

    func ping() {
        guard let session else { return }
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Queues GOAWAY with `code`; the session then winds down.
    func terminate(code: UInt32) {
        guard let session else { return }
        _ = nghttp2_session_terminate_session(session, code)
    }

    /// The name of an HTTP/2 error code (`REFUSED_STREAM`), or its number.
    static func name(ofErrorCode code: UInt32) -> String {
        switch code {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR"
        case 0x2: "INTERNAL_ERROR"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x4: "SETTINGS_TIMEOUT"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM"
        case 0x8: "CANCEL"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        default: "0x\(String(code, radix: 16))"
        }
    }

    // MARK: C

    private func check(_ status: Int32, _ what: String) throws(HTTPClientError) {
        if status != 0 { throw Self.error(status, what) }
    }

    private static func error(_ status: Int32, _ what: String) -> HTTPClientError {
        let reason = String(cString: nghttp2_strerror(status))
        var error = HTTPClientError(.http2, "\(what): \(reason)")
        if status == NGHTTP2_ERR_FLOODED.rawValue || status == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue {
            error.http2ErrorCode = 0xb  // ENHANCE_YOUR_CALM, as nghttp2 tells the server
        } else if status == NGHTTP2_ERR_PROTO.rawValue || status == NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue {
            error.http2ErrorCode = 0x1
        }
        return error
    }

    private static func of(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2Session {
        Unmanaged<NGHTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static func has(_ flag: nghttp2_flag, _ flags: UInt8) -> Bool {
        flags & UInt8(flag.rawValue) != 0
    }

    private static let readBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
        switch NGHTTP2Session.of(userData).delegate.session(readBodyOf: stream, into: UnsafeMutableRawBufferPointer(start: buffer, count: length)) {
        case .deferred:
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        case .bytes(let count, let last):
            if last { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
    }

    private static func install(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            let accepted = NGHTTP2Session.of(userData).delegate.session(header: UnsafeRawBufferPointer(start: name, count: nameLength),
                                                         value: UnsafeRawBufferPointer(start: value, count: valueLength),
                                                         stream: frame!.pointee.hd.stream_id)
            return accepted ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            NGHTTP2Session.of(userData).delegate.session(data: UnsafeRawBufferPointer(start: data, count: length), stream: stream)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, userData in
            NGHTTP2Session.of(userData).delegate.session(streamClosed: stream, errorCode: code)
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, code, userData in
            NGHTTP2Session.of(userData).delegate.session(invalidFrameOn: frame!.pointee.hd.stream_id,
                                                         reason: String(cString: nghttp2_strerror(code)))
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            let bytes = UnsafeRawBufferPointer(start: message, count: length)
            NGHTTP2Session.of(userData).delegate.session(error: String(decoding: bytes, as: UTF8.self))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            let delegate = NGHTTP2Session.of(userData).delegate
            let head = frame!.pointee.hd
            switch UInt32(head.type) {
            case NGHTTP2_HEADERS.rawValue:
                delegate.session(headersEndedOn: head.stream_id, endStream: NGHTTP2Session.has(NGHTTP2_FLAG_END_STREAM, head.flags))
            case NGHTTP2_DATA.rawValue:
                if NGHTTP2Session.has(NGHTTP2_FLAG_END_STREAM, head.flags) { delegate.session(dataEndedOn: head.stream_id) }
            case NGHTTP2_GOAWAY.rawValue:
                let goaway = frame!.pointee.goaway
                let debug = goaway.opaque_data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: goaway.opaque_data_len), as: UTF8.self) } ?? ""
                delegate.session(goAwayWithLastStream: goaway.last_stream_id, errorCode: goaway.error_code, debug: debug)
            case NGHTTP2_SETTINGS.rawValue where !NGHTTP2Session.has(NGHTTP2_FLAG_ACK, head.flags):
                guard delegate.sessionReceivedControlFrame() else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
                let settings = frame!.pointee.settings
                var maxStreams: Int?
                for i in 0..<settings.niv where settings.iv[i].settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                    maxStreams = Int(settings.iv[i].value)
                }
                delegate.session(settingsWithMaxConcurrentStreams: maxStreams)
            case NGHTTP2_PING.rawValue:
                if NGHTTP2Session.has(NGHTTP2_FLAG_ACK, head.flags) {
                    delegate.sessionReceivedPingAcknowledgement()
                } else if !delegate.sessionReceivedControlFrame() {
                    return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
                }
            case NGHTTP2_RST_STREAM.rawValue:
                guard delegate.sessionReceivedControlFrame() else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
            default:
                break
            }
            return 0
        }
    }
}
