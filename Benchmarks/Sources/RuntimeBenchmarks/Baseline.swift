import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the machine itself does without the runtime, to read the runtime's
/// numbers against: a wake-up ping-pong between two plain threads, and the
/// same 64-byte loopback echo as benchmark 3 over blocking sockets, one
/// thread per side. Placed like the runtime's benchmarks (side 0 / side 1).
enum BaselineBenchmark {
    struct Sample {
        let name: String
        let rounds: Int
        let elapsed: Duration
        let latencies: [Int]  // sorted, nanoseconds

        var roundsPerSecond: Double { Double(rounds) / elapsed.seconds }
        func latencyMicroseconds(_ p: Double) -> Double { Double(percentile(latencies, p)) / 1000 }
    }

    /// Two threads hand a token back and forth through two semaphores (futex wake-ups).
    static func threadPingPong(rounds: Int, limit: Duration, placement: Placement) throws -> Sample {
        let ping = DispatchSemaphore(value: 0)
        let pong = DispatchSemaphore(value: 0)
        let stop = Atomic<Bool>(false)
        let responder = OSThread {
            pinCurrentThread(to: placement.cpu(forSide: 0))
            while true {
                ping.wait()
                if stop.load(ordering: .acquiring) { return }
                pong.signal()
            }
        }
        pinCurrentThread(to: placement.cpu(forSide: 1))
        defer { pinCurrentThread(to: nil) }
        var latencies: [Int] = []
        latencies.reserveCapacity(rounds)
        let start = clock.now
        let deadline = start + limit
        while latencies.count < rounds {
            let sent = clock.now
            ping.signal()
            guard pong.wait(timeout: .now() + .seconds(5)) == .success else {
                throw BenchmarkError("thread ping-pong: no answer within 5 s")
            }
            let now = clock.now
            latencies.append((now - sent).wholeNanoseconds)
            if now >= deadline { break }
        }
        let elapsed = clock.now - start
        stop.store(true, ordering: .releasing)
        ping.signal()
        responder.join()
        return Sample(name: "two plain threads, semaphore ping-pong (wake-up round trip)", rounds: latencies.count,
                      elapsed: elapsed, latencies: latencies.sorted())
    }

    /// 64-byte echo over blocking TCP sockets on 127.0.0.1, one thread per side.
    static func blockingSocketEcho(rounds: Int, limit: Duration, placement: Placement) throws -> Sample {
        let size = EchoBenchmark.messageSize
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchmarkError("socket: errno \(errno)") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                guard bind(listener, sa, length) == 0, listen(listener, 1) == 0,
                      getsockname(listener, sa, &length) == 0 else {
                    throw BenchmarkError("bind/listen on 127.0.0.1: errno \(errno)")
                }
            }
        }

        let server = OSThread {
            pinCurrentThread(to: placement.cpu(forSide: 0))
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            setNoDelay(fd)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return }
                var sent = 0
                while sent < n {
                    let m = buffer.withUnsafeBytes { send(fd, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                    if m <= 0 { return }
                    sent += m
                }
            }
        }
        defer { server.join() }

        pinCurrentThread(to: placement.cpu(forSide: 1))
        defer { pinCurrentThread(to: nil) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket: errno \(errno)") }
        defer { close(fd) }
        // A receive timeout keeps a lost echo from hanging the run.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else { throw BenchmarkError("connect to 127.0.0.1: errno \(errno)") }
        setNoDelay(fd)

        let message = [UInt8](repeating: UInt8(ascii: "f"), count: size)
        var buffer = [UInt8](repeating: 0, count: size)
        var latencies: [Int] = []
        latencies.reserveCapacity(rounds)
        let start = clock.now
        let deadline = start + limit
        while latencies.count < rounds {
            let sent = clock.now
            guard message.withUnsafeBytes({ send(fd, $0.baseAddress, size, Int32(MSG_NOSIGNAL)) }) == size else {
                throw BenchmarkError("send: errno \(errno)")
            }
            var received = 0
            while received < size {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + received, size - received, 0) }
                guard n > 0 else { throw BenchmarkError("recv: errno \(errno)") }
                received += n
            }
            let now = clock.now
            latencies.append((now - sent).wholeNanoseconds)
            if now >= deadline { break }
        }
        let elapsed = clock.now - start
        shutdown(fd, Int32(SHUT_RDWR))
        return Sample(name: "blocking sockets, one thread per side, 64-byte echo", rounds: latencies.count,
                      elapsed: elapsed, latencies: latencies.sorted())
    }

    private static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
