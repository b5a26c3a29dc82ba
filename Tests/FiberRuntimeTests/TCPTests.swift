import CZlib
@testable import FiberRuntime
import FiberTesting
import Glibc
import Testing

@Suite("TCP over loopback", .timeLimit(.minutes(2)))
struct TCPTests {
    @Test func echoesBytesBetweenLoops() async throws {
        try await withGroup(loops: 2) { group in
            let (listener, server) = try await startEcho(on: group.loops[0])
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: group.loops[1])
            #expect(client.remoteAddress?.port == listener.port)
            for i in 0..<50 {
                let message = Array("message \(i)".utf8)
                try await client.write(message)
                #expect(try await read(message.count, from: client) == message)
            }
            await client.close()
            await listener.close()
            await server.value
        }
    }

    @Test func resolvesLocalhostWithoutAQuery() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let resolver = Resolver(cacheTTL: .zero)
            let addresses = try await resolver.resolve(host: "LocalHost", port: 8080, on: loop)
            #expect(addresses.map(\.description) == ["127.0.0.1:8080", "[::1]:8080"])
            #expect(try await resolver.resolve(host: "api.localhost", port: 1, on: loop).count == 2)
            // The system resolver itself, asked for IPv4 only: /etc/hosts answers, no DNS packet leaves.
            let system = try await resolver.getaddrinfo(host: "localhost", port: 8080, family: AF_INET, on: loop)
            #expect(system == [.ipv4([127, 0, 0, 1], port: 8080)])
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "localhost", port: listener.port, on: loop, resolver: resolver)
            try await client.write([1, 2, 3])
            #expect(try await read(3, from: client) == [1, 2, 3])
            await client.close()
            await listener.close()
            await server.value
        }
    }

    /// A name in the host table resolves to its addresses in the table's order, with the
    /// port asked for, whatever its case; an empty entry fails as a name with no address.
    @Test func resolvesNamesFromItsHostTable() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let resolver = Resolver(hosts: [
                "Service.Example": [.ipv6([0xfd] + Array(repeating: 0, count: 14) + [9], port: 1), .ipv4([127, 0, 0, 1], port: 2)],
                "nothing.example": [],
            ])
            let addresses = try await resolver.resolve(host: "service.EXAMPLE", port: 8080, on: loop)
            #expect(addresses.map(\.description) == ["[fd00::9]:8080", "127.0.0.1:8080"])
            do {
                _ = try await resolver.resolve(host: "nothing.example", port: 80, on: loop)
                Issue.record("an empty host-table entry resolved")
            } catch let error as TransportError {
                #expect(error.kind == .dnsFailure && error.codeName == "EAI_NODATA", "\(error)")
            }
            // The table's IPv4 address answers a connection made by name.
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "service.example", port: listener.port, on: loop,
                                                        options: SocketOptions(), resolver: resolver)
            #expect(client.remoteAddress?.family == .ipv4)
            await client.close()
            await listener.close()
            await server.value
        }
    }

    @Test func vectoredWritesArriveInOrder() async throws {
        try await withGroup { group in
            let (listener, server) = try await startEcho(on: group.loops[0])
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: group.loops[0])
            let parts: [[UInt8]] = [Array("GET / HTTP/1.1\r\n".utf8), Array("Host: x\r\n".utf8), [], Array("\r\n".utf8)]
            try await client.write(contentsOf: parts)
            #expect(try await read(parts.joined().count, from: client) == Array(parts.joined()))
            await client.close()
            await listener.close()
            await server.value
        }
    }

    @Test func anActorPinnedToTheLoopDoesSocketWorkWithoutHops() async throws {
        actor Pinger {
            nonisolated let loop: EventLoop
            nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
            init(loop: EventLoop) { self.loop = loop }
            func run(port: Int) async throws -> Int {
                let stream = try await SocketStream.connect(host: "127.0.0.1", port: port, on: loop)
                var rounds = 0
                for _ in 0..<20 {
                    try await stream.write([7])
                    guard try await stream.read() == [7], loop.inEventLoop else { break }
                    rounds += 1
                }
                await stream.close()
                return rounds
            }
        }
        try await withGroup { group in
            let (listener, server) = try await startEcho(on: group.loops[0])
            #expect(try await Pinger(loop: group.loops[0]).run(port: listener.port) == 20)
            await listener.close()
            await server.value
        }
    }

    @Test func connectRefusedIsTyped() async throws {
        try await withGroup { group in
            let refusing = RefusingPort()
            let port = refusing.port
            defer { withExtendedLifetime(refusing) {} }
            await #expect {
                try await SocketStream.connect(host: "127.0.0.1", port: port, on: group.loops[0])
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                return error.kind == .connectionRefused && error.codeName == "ECONNREFUSED"
                    && error.address == "127.0.0.1:\(port)" && error.operation == "connect"
            }
        }
    }

    @Test func dnsFailureNamesTheHost() async throws {
        try await withGroup { group in
            await #expect {
                try await SocketStream.connect(host: "no-such-host.invalid", port: 80, on: group.loops[0])
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                return error.kind == .dnsFailure && error.host == "no-such-host.invalid"
                    && error.description.contains("no-such-host.invalid")
            }
        }
    }

    @Test func connectTimeoutAgainstASilentPeer() async throws {
        try await withGroup { group in
            let silent = SilentListener()
            var options = SocketOptions()
            options.connectTimeout = .milliseconds(200)
            let clock = ContinuousClock()
            let start = clock.now
            await #expect {
                try await SocketStream.connect(host: "127.0.0.1", port: silent.port, on: group.loops[0], options: options)
            } throws: { ($0 as? TransportError)?.kind == .timeout }
            #expect(clock.now - start < .seconds(30), "the timeout fires, long before the kernel's own (minutes); wide for sanitizer runs")
            withExtendedLifetime(silent) {}
        }
    }

    @Test func happyEyeballsMovesOnFromASilentAddressAfterTheDelay() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let silent = SilentListener()
            let (listener, server) = try await startEcho(on: loop)
            var options = SocketOptions()
            options.attemptDelay = .milliseconds(100)
            let addresses = [SocketAddress.ipv4([127, 0, 0, 1], port: silent.port),
                             SocketAddress.ipv4([127, 0, 0, 1], port: listener.port)]
            let clock = ContinuousClock()
            let start = clock.now
            let stream = try await SocketStream.connect(to: addresses, on: loop, options: options)
            #expect(stream.remoteAddress?.port == listener.port)
            #expect(clock.now - start >= .milliseconds(95))
            await stream.close()
            await listener.close()
            await server.value
            withExtendedLifetime(silent) {}
        }
    }

    @Test func happyEyeballsFallsBackFromARefusedIPv6Address() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            // Nothing listens on [::1]:port (the echo server is IPv4 only): refused, then 127.0.0.1 at once.
            let addresses = [SocketAddress(ipLiteral: "::1", port: listener.port)!, SocketAddress(ipLiteral: "127.0.0.1", port: listener.port)!]
            let stream = try await SocketStream.connect(to: addresses, on: loop)
            #expect(stream.remoteAddress?.family == .ipv4)
            await stream.close()
            await listener.close()
            await server.value
        }
    }

    @Test func ipv6LoopbackWorks() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let listener = try await SocketListener.listen(host: "::1", on: loop)
            #expect(listener.localAddress.family == .ipv6)
            let accepted = Task { try await listener.accept() }
            let client = try await SocketStream.connect(host: "::1", port: listener.port, on: loop)
            let server = try await accepted.value
            try await server.write([42])
            #expect(try await client.read() == [42])
            await client.close()
            await server.close()
            await listener.close()
        }
    }

    @Test func peerResetMidStreamIsTyped() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, client, server) = try await connectedPair(on: loop)
            try await server.write(Array(repeating: 1, count: 1000))
            #expect(try await read(1000, from: client).count == 1000)
            await server.reset()
            await #expect { while try await client.read() != nil {} } throws: {
                ($0 as? TransportError)?.kind == .connectionReset
            }
            // Writing to a reset connection fails the same way and never kills the process (the group ignores SIGPIPE).
            await #expect { try await client.write([1]) } throws: { $0 is TransportError }
            await client.close()
            await listener.close()
        }
    }

    @Test func peerClosingEarlyEndsTheStreamAndLaterWritesFail() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, client, server) = try await connectedPair(on: loop)
            try await server.write([1, 2, 3])
            await server.close()
            #expect(try await read(3, from: client) == [1, 2, 3])
            #expect(try await client.read() == nil)
            #expect(try await client.read() == nil)
            // The peer is gone: within a few writes the kernel reports the reset.
            await #expect {
                for _ in 0..<100 {
                    try await client.write(Array(repeating: 0, count: 1024))
                    try await loop.sleep(for: .milliseconds(2))
                }
            } throws: { ($0 as? TransportError)?.kind == .connectionReset }
            await client.close()
            await listener.close()
        }
    }

    @Test func halfCloseLetsThePeerAnswerAfterTheEndOfTheRequest() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let listener = try await SocketListener.listen(on: loop)
            let server = Task {
                let connection = try await listener.accept()
                let request = try await connection.readAll()
                try await connection.write(Array("got \(request.count)".utf8))
                await connection.close()
            }
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            try await client.write(Array(repeating: 9, count: 5000))
            try await client.shutdownOutput()
            #expect(String(decoding: try await client.readAll(), as: UTF8.self) == "got 5000")
            try await server.value
            await client.close()
            await listener.close()
        }
    }

    @Test func closedStreamRefusesReadsAndWrites() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            let pending = Task { try await client.read() }
            try await Task.sleep(for: .milliseconds(20))
            await client.close()
            await client.close()
            await #expect { try await pending.value } throws: { ($0 as? TransportError)?.kind == .closed }
            await #expect { try await client.write([1]) } throws: { ($0 as? TransportError)?.kind == .closed }
            await #expect { try await client.read() } throws: { ($0 as? TransportError)?.kind == .closed }
            await listener.close()
            await server.value
        }
    }

    @Test func cancellingAReadLeavesTheStreamUsable() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            let reader = Task { try await client.read() }
            try await Task.sleep(for: .milliseconds(20))
            reader.cancel()
            await #expect(throws: CancellationError.self) { try await reader.value }
            try await client.write([5])
            #expect(try await client.read() == [5])
            await client.close()
            await listener.close()
            await server.value
        }
    }

    /// One reader at a time: a second `read()` while one waits is refused
    /// with a typed error, and the first still gets the next bytes.
    @Test func aSecondConcurrentReadIsRefusedAndTheFirstKeepsWaiting() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            let first = Task { try await client.read() }
            try await waitUntil { await client.existingReadQueue?.withState { $0.waiter != nil } ?? false }
            await #expect { try await client.read() } throws: { ($0 as? TransportError)?.kind == .other }
            try await client.write([7, 8])
            #expect(try await first.value == [7, 8])
            await client.close()
            await listener.close()
            await server.value
        }
    }

    /// Bytes the peer sent before the peer's FIN are all read, then the end,
    /// every time; closing the stream afterwards does not turn the end into an error.
    @Test func queuedBytesComeBeforeTheEndAndTheEndStays() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let listener = try await SocketListener.listen(on: loop)
            let server = Task {
                let connection = try await listener.accept()
                try await connection.write([1, 2, 3])
                try await connection.write([4])
                await connection.close()
            }
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            try await server.value
            try await waitUntil { await client.bufferedByteCount == 4 }
            #expect(try await read(4, from: client) == [1, 2, 3, 4])
            #expect(try await client.read() == nil)
            await client.close()
            #expect(try await client.read() == nil)
            await listener.close()
        }
    }

    /// Switching to an in-place reader (the HTTP/1.1 parser's path) hands it
    /// the bytes already queued first, then what follows, then the end.
    @Test func theInPlaceReaderGetsTheQueuedBytesFirst() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            try await client.write([1, 2])
            try await waitUntil { await client.bufferedByteCount == 2 }
            let seen = Locked<[UInt8]>([])
            let ended = Locked(false)
            await client.setInPlaceReader { read in
                switch read {
                case .bytes(let bytes): seen.withLock { $0 += bytes }
                case .end, .failure: ended.withLock { $0 = true }
                }
            }
            #expect(await client.bufferedByteCount == 0)
            try await client.write([3])
            try await waitUntil { seen.withLock { $0.count } == 3 }
            #expect(seen.withLock { $0 } == [1, 2, 3])
            await #expect { try await client.read() } throws: { ($0 as? TransportError)?.kind == .other }
            await client.close()
            #expect(ended.withLock { $0 })
            await listener.close()
            await server.value
        }
    }

    /// A task waiting in `read()` when the bytes go to an in-place reader is
    /// told so with a typed error instead of waiting for ever.
    @Test func aWaitingReadEndsWhenTheBytesGoInPlace() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
            let waiting = Task { try await client.read() }
            try await waitUntil { await client.existingReadQueue?.withState { $0.waiter != nil } ?? false }
            await client.setInPlaceReader { _ in }
            await #expect { try await waiting.value } throws: { ($0 as? TransportError)?.kind == .other }
            await client.close()
            await listener.close()
            await server.value
        }
    }

    @Test func socketOptionsApply() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            var options = SocketOptions()
            options.keepAlive = .seconds(30)
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop, options: options)
            try await client.setNoDelay(false)
            try await client.setKeepAlive(nil)
            try await client.setKeepAlive(.seconds(5))
            await client.close()
            await listener.close()
            await server.value
        }
    }

    @Test func droppingAStreamWithoutClosingItReleasesItsSocket() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let (listener, server) = try await startEcho(on: loop)
            do {
                let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
                try await client.write([1])
                _ = try await client.read()
            }
            await listener.close()
            await server.value
            // withGroup checks that no handle is left open.
        }
    }

    /// 512 MiB through a consumer slower than the producer: the client's
    /// buffer never passes its high watermark by more than one read (the writer
    /// awaits each write, so its side holds one block), and every byte arrives
    /// intact (Adler-32 both ends).
    @Test func largeTransferThroughASlowConsumerStaysBoundedAndIntact() async throws {
        try await withGroup(loops: 2) { group in
            let total = 512 * 1024 * 1024
            let listener = try await SocketListener.listen(on: group.loops[0])
            let server = Task { () async throws -> UInt in
                let connection = try await listener.accept()
                var checksum = adler32(0, nil, 0)
                var block = [UInt8](repeating: 0, count: 256 * 1024)
                var sent = 0, seed: UInt8 = 1
                while sent < total {
                    for i in stride(from: 0, to: block.count, by: 4096) { block[i] = seed &+ UInt8(truncatingIfNeeded: i >> 12) }
                    seed &+= 1
                    checksum = block.withUnsafeBufferPointer { adler32(checksum, $0.baseAddress, UInt32($0.count)) }
                    try await connection.write(block)
                    sent += block.count
                }
                await connection.close()
                return checksum
            }
            var options = SocketOptions()
            options.readHighWatermark = 512 * 1024
            options.readLowWatermark = 128 * 1024
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: group.loops[1], options: options)
            var received = 0, chunks = 0, maxBuffered = 0
            var checksum = adler32(0, nil, 0)
            while let chunk = try await client.read() {
                received += chunk.count
                checksum = chunk.withUnsafeBufferPointer { adler32(checksum, $0.baseAddress, UInt32($0.count)) }
                chunks += 1
                if chunks % 256 == 0 {
                    maxBuffered = max(maxBuffered, await client.bufferedByteCount)
                    try await Task.sleep(for: .milliseconds(1))  // the slow consumer
                }
            }
            let sentChecksum = try await server.value
            #expect(received == total)
            #expect(checksum == sentChecksum)
            #expect(maxBuffered <= options.readHighWatermark + 64 * 1024)
            // The bound is the stream's own count of buffered bytes, not the process's RSS: with
            // eight tests at a time, another test's bodies (nginx downloads, 100 MiB uploads)
            // raised RSS by 350 MiB during this one, as much as unbounded buffering would.
            await client.close()
            await listener.close()
        }
    }
}
