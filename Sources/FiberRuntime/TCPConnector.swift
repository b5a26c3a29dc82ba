import CLibUV

/// Performs one Happy Eyeballs connection race on a loop: the rules are in
/// `HappyEyeballs`; this actor opens and closes the sockets they ask for.
actor TCPConnector {
    private nonisolated let loop: EventLoop
    private let host: String
    private let addresses: [SocketAddress]
    private let options: SocketOptions
    private var machine: HappyEyeballs
    private var attempts: [Int: UVHandle] = [:]
    private var failures: [TransportError] = []
    private var delayTimer: LoopTimer?
    private var deadlineTimer: LoopTimer?
    private let result = OnceContinuation<SocketStream>()

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    init(host: String, addresses: [SocketAddress], options: SocketOptions, loop: EventLoop) {
        self.loop = loop
        self.host = host
        self.addresses = HappyEyeballs.interleave(addresses)
        self.options = options
        self.machine = HappyEyeballs(addressCount: addresses.count)
    }

    /// Races the addresses and returns the first connected stream.
    ///
    /// - Throws: `TransportError`: the last attempt's error when all fail
    ///   (every address is in `failures`' order), `.timeout` after the connect
    ///   timeout, `.eventLoopShutdown`; `CancellationError`.
    func connect() async throws -> SocketStream {
        try await withTaskCancellationHandler {
            try await result.wait {
                do {
                    let deadline = try LoopTimer(on: loop)
                    deadlineTimer = deadline
                    deadline.start(after: options.connectTimeout) { [weak self] in
                        self?.assumeIsolated { $0.perform($0.machine.timedOut()) }
                    }
                    perform(machine.start())
                } catch {
                    result.resume(with: .failure(error))
                }
            }
        } onCancel: { [weak self] in
            guard let self else { return }
            try? self.loop.execute { self.assumeIsolated { $0.perform($0.machine.cancelled(), cancelled: true) } }
        }
    }

    private func perform(_ actions: [HappyEyeballs.Action], cancelled: Bool = false) {
        for action in actions {
            switch action {
            case .startAttempt(let n):
                startAttempt(n)
            case .armDelay:
                armDelay()
            case .disarmDelay:
                delayTimer?.stop()
            case .closeAttempt(let n):
                attempts.removeValue(forKey: n)?.close()
            case .succeed(let n):
                guard let handle = attempts.removeValue(forKey: n) else { continue }
                SocketStream.configure(handle, options)
                let stream = SocketStream(adopting: handle, remoteAddress: addresses[n], options: options)
                finishTimers()
                result.resume(with: .success(stream))
            case .failAll:
                finishTimers()
                let error = failures.last ?? TransportError(.dnsFailure, operation: "connect", host: host,
                                                            systemMessage: "no addresses to connect to")
                result.resume(with: .failure(error.with(host: host)))
            case .failTimeout:
                finishTimers()
                result.resume(with: .failure(TransportError(.timeout, operation: "connect", host: host,
                                                            systemMessage: "no address connected within \(options.connectTimeout)")))
            }
        }
        if cancelled {
            finishTimers()
            result.resume(with: .failure(CancellationError()))
        }
    }

    private func startAttempt(_ n: Int) {
        let address = addresses[n]
        do {
            let handle = try UVHandle.make(UV_TCP, on: loop, operation: "connect") { uv_tcp_init(loop.uvLoop, $0.tcp) }
            attempts[n] = handle
            let request = UVRequest.make(UV_CONNECT)
            request.completion = { [weak self] status in
                self?.assumeIsolated { $0.attemptFinished(n, status: status) }
            }
            let status = address.withSockAddr {
                uv_tcp_connect(request.pointer(as: uv_connect_t.self), handle.tcp, $0, UVRequest.connectCallback)
            }
            if status < 0 {
                request.discard()
                attemptFinished(n, status: status)
            }
        } catch {
            failures.append(error)
            perform(machine.attemptFailed(n))
        }
    }

    private func attemptFinished(_ n: Int, status: Int32) {
        if status == 0 {
            perform(machine.attemptSucceeded(n))
        } else {
            attempts.removeValue(forKey: n)?.close()
            if status != UV_ECANCELED.rawValue {
                failures.append(UVError.transportError(status, operation: "connect", host: host, address: addresses[n].description))
            }
            perform(machine.attemptFailed(n))
        }
    }

    private func armDelay() {
        if delayTimer == nil { delayTimer = try? LoopTimer(on: loop) }
        delayTimer?.start(after: options.attemptDelay) { [weak self] in
            self?.assumeIsolated { $0.perform($0.machine.delayElapsed()) }
        }
    }

    private func finishTimers() {
        delayTimer?.close()
        deadlineTimer?.close()
        delayTimer = nil
        deadlineTimer = nil
    }
}
