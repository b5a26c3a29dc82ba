import CLibUV

/// What a TLS handshake settled, for logs and tests.
public struct TLSConnectionInfo: Sendable, Hashable {
    /// "TLSv1.3" or "TLSv1.2".
    public let protocolVersion: String
    /// The ALPN protocol chosen, if any (`http/1.1`).
    public let applicationProtocol: String?
    /// True when an earlier session was resumed (an abbreviated handshake).
    public let resumedSession: Bool
    /// The peer's certificates in DER, leaf first.
    public let peerCertificates: [[UInt8]]
}

extension SocketStream {
    /// Starts TLS on this connected stream and returns once the handshake is
    /// complete, the peer verified and its pins checked. Afterwards every read
    /// is decrypted and every write encrypted; `close()` sends `close_notify`,
    /// and an end of stream without the peer's `close_notify` is an error
    /// (`TransportError` `.tls`, `TLSError` `.truncated`), never a clean end.
    ///
    /// - Parameters:
    ///   - configuration: trust, verification, versions, pins and identity.
    ///   - host: the name or IP literal the client verifies (and sends as SNI); nil on a server.
    ///   - port: with `host`, the key of resumable sessions.
    ///   - timeout: the handshake's limit (none by default).
    /// - Throws: `TLSError` (a refused certificate with its own kind, a pin
    ///   mismatch, `.handshakeTimeout`, `.invalidConfiguration`, …), after which
    ///   the stream is closed; `TransportError` if the stream failed or closed.
    @discardableResult
    public func startTLS(_ configuration: TLSConfiguration, host: String?, port: Int = 0,
                         timeout: Duration? = nil) async throws -> TLSConnectionInfo {
        try await handshake(configuration, host: host, port: port, timeout: timeout)
        guard let info = tlsInfo else { throw closeReason ?? TransportError(.closed, operation: "TLS handshake") }
        return info
    }

    /// `startTLS` without building the connection's description (the pool's
    /// path: decoding the peer's certificates again would cost every handshake).
    ///
    /// - Throws: as `startTLS`.
    func handshake(_ configuration: TLSConfiguration, host: String?, port: Int, timeout: Duration?) async throws {
        let context: TLSContext
        do {
            context = try await TLSContext.shared(for: configuration, on: loop)
        } catch let error as TLSError {
            close()
            throw error.at(host: host)
        }
        try await handshake(context, host: host, port: port, timeout: timeout)
    }

    private func handshake(_ context: TLSContext, host: String?, port: Int, timeout: Duration?) async throws {
        if let closeReason { throw closeReason.with(operation: "TLS handshake") }
        guard tls == nil else { throw TLSError(.invalidConfiguration, "TLS was already started on this stream", host: host) }
        let engine = try TLSEngine(context: context, host: host, port: port)
        let done = OnceContinuation<Void>()
        var timer: LoopTimer?
        if let timeout {
            timer = try? LoopTimer(on: loop)
            timer?.start(after: timeout) { [weak self] in
                self?.assumeIsolated { $0.failHandshake(TLSError(.handshakeTimeout, "no handshake within \(timeout)", host: host)) }
            }
        }
        defer { timer?.close() }
        try await withTaskCancellationHandler {
            try await done.wait {
                tls = engine
                tlsHandshake = done
                // Bytes that came before TLS started (a server's ClientHello) are the handshake's.
                for chunk in takeQueuedReads() { chunk.withUnsafeBytes { engine.feed($0) } }
                advanceHandshake(engine)
                if tlsHandshake != nil {
                    switch input {
                    case .open: break
                    case .ended: failHandshake(TLSError(.handshakeFailed, "the peer closed the connection during the handshake", host: host))
                    case .failed(let error): failHandshake(TLSError(.handshakeFailed, "\(error)", host: host))
                    }
                }
            }
        } onCancel: { [weak self] in
            guard let self else { return }
            try? loop.execute { self.assumeIsolated { $0.close() } }
        }
    }

    /// What the handshake settled, once TLS is running.
    public var tlsInfo: TLSConnectionInfo? {
        guard let tls, tls.isHandshakeComplete else { return nil }
        return TLSConnectionInfo(protocolVersion: tls.protocolVersion, applicationProtocol: tls.negotiatedProtocol,
                                 resumedSession: tls.isResumed, peerCertificates: tls.peerChain.map(\.der))
    }

    // MARK: Driven by reads

    func didReadTLS(_ engine: TLSEngine, status: Int, bytes: UnsafeRawBufferPointer) {
        guard status > 0 else {
            if status < 0 { endTLS(engine, status: status) }
            return
        }
        engine.feed(bytes)
        if engine.isHandshakeComplete {
            decrypt(engine)
        } else {
            advanceHandshake(engine)  // decrypts too, once complete
        }
    }

    private func advanceHandshake(_ engine: TLSEngine) {
        do {
            let complete = try engine.handshake()
            flushTLS(engine)
            guard complete else { return }
            tlsHandshake?.resume(with: .success(()))
            tlsHandshake = nil
            decrypt(engine)  // application data may have come with the last handshake bytes
        } catch let error as TLSError {
            failHandshake(error)
        } catch {
            failHandshake(TLSError(.handshakeFailed, "\(error)", host: engine.host))
        }
    }

    private func failHandshake(_ error: TLSError) {
        guard let waiter = tlsHandshake else { return }
        tlsHandshake = nil
        if let tls { flushTLS(tls) }  // the alert that tells the peer why
        waiter.resume(with: .failure(error))
        close()
    }

    /// Decrypts everything fed so far and hands it to the reader.
    private func decrypt(_ engine: TLSEngine) {
        do {
            let end = try engine.readPlaintext(into: loop.loopPlaintextBuffer) { plaintext in
                deliver(status: plaintext.count, bytes: plaintext)
                return closeReason == nil && self.input.isOpen  // the reader may have closed the stream
            }
            flushTLS(engine)  // a key update or an alert may want an answer
            if end == .closeNotify { endReading(nil) }
        } catch let error as TLSError {
            flushTLS(engine)
            endReading(.tls(error, operation: "read"))
        } catch {
            endReading(TransportError(.tls, operation: "read", systemMessage: "\(error)"))
        }
    }

    /// The socket ended: cleanly only if the peer said `close_notify` first.
    private func endTLS(_ engine: TLSEngine, status: Int) {
        if !engine.isHandshakeComplete {
            let cause = endError(status).map { "\($0)" } ?? "the peer closed the connection during the handshake"
            failHandshake(TLSError(.handshakeFailed, cause, host: engine.host))
            return
        }
        if let error = endError(status) {
            endReading(error)
        } else if engine.receivedCloseNotify {
            endReading(nil)
        } else {
            endReading(.tls(TLSError(.truncated, "the peer closed the connection without close_notify: the data may be cut short",
                                     host: engine.host), operation: "read"))
        }
    }

    // MARK: Writing

    /// `startWrite` under TLS: encrypts `buffers` into records, writes what the
    /// kernel takes and queues the rest.
    func startTLSWrite<C: Collection>(_ buffers: C, through engine: TLSEngine) throws -> OnceContinuation<Void>?
        where C.Element: WritableBytes {
        do {
            for buffer in buffers { try buffer.withBytes { try engine.write($0) } }
        } catch let error as TLSError {
            throw TransportError.tls(error, operation: "write")
        }
        guard let rest = try engine.drainOutput({ try tryWrite($0) }) else { return nil }
        return try queueWrite(rest)
    }

    /// Sends what OpenSSL produced on its own (handshake, alerts, answers):
    /// no one waits for it, and a failure shows up in the next read.
    func flushTLS(_ engine: TLSEngine) {
        guard engine.hasOutput, !handle.isClosing else { return }
        engine.drainOutput { bytes in
            if let rest = try? tryWrite(bytes) { _ = try? queueWrite(rest) }
        }
    }

    /// On close: `close_notify`, if the handshake finished (best effort; the handle closes next).
    func sendCloseNotify() {
        guard let tls, tls.isHandshakeComplete else { return }
        tls.shutdown()
        flushTLS(tls)
    }
}
