import FiberRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Unix domain sockets", .timeLimit(.minutes(1)))
struct UnixSocketTests {
    private func temporaryPath() -> String { "/tmp/fiber-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock" }

    @Test func echoOverAUnixSocket() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let path = temporaryPath()
            defer { unlink(path) }
            let listener = try await SocketListener.listen(unixPath: path, on: loop)
            let server = Task {
                let connection = try await listener.accept()
                while let chunk = try await connection.read() { try await connection.write(chunk) }
                await connection.close()
            }
            let client = try await SocketStream.connect(unixPath: path, on: loop)
            #expect(client.remoteAddress == .unix(path: path))
            try await client.write(Array("over a pipe".utf8))
            #expect(try await read(11, from: client) == Array("over a pipe".utf8))
            try await client.shutdownOutput()
            #expect(try await client.read() == nil)
            try await server.value
            await client.close()
            await listener.close()
        }
    }

    @Test func staleSocketFileIsReplaced() async throws {
        try await withGroup { group in
            let path = temporaryPath()
            defer { unlink(path) }
            let first = try await SocketListener.listen(unixPath: path, on: group.loops[0])
            await first.close()
            try await Task.sleep(for: .milliseconds(10))
            // The file stays behind after close; a new listener takes its place.
            let second = try await SocketListener.listen(unixPath: path, on: group.loops[0])
            await second.close()
        }
    }

    @Test func missingSocketIsATypedError() async throws {
        try await withGroup { group in
            await #expect {
                try await SocketStream.connect(unixPath: "/tmp/fiber-no-such-socket-\(getpid())", on: group.loops[0])
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                return error.codeName == "ENOENT" && error.address?.hasPrefix("unix:") == true
            }
        }
    }
}
