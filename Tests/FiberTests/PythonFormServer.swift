import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `Scripts/form_server.py` on 127.0.0.1: Werkzeug's multipart parser and
/// urllib's form parser, answering what they read as JSON.
enum PythonFormServer {
    static let isAvailable = PythonPeer.canImport("werkzeug")

    /// Runs `body` with a client of this server over the runtime's transport, then stops both.
    static func with<T>(_ body: (Fiber) async throws -> T) async throws -> T {
        let server = try PythonPeer(script: "form_server.py")
        let group = EventLoopGroup(loopCount: 1, name: "form-server-test")
        let transport = HTTPTransport(eventLoopGroup: group)
        let fiber = Fiber("http://127.0.0.1:\(server.port)") { $0.transport = transport }
        do {
            let result = try await body(fiber)
            await transport.shutdown()
            try await group.shutdown()
            server.stop()
            return result
        } catch {
            await transport.shutdown()
            try? await group.shutdown()
            server.stop()
            throw error
        }
    }
}

/// What the server's multipart parser found.
struct ParsedMultipart: Decodable {
    struct File: Decodable, Equatable {
        let name: String
        let filename: String
        let content_type: String
        let size: Int
        let sha256: String
    }
    let fields: [[String]]
    let files: [File]
    let content_length: String?
    let transfer_encoding: String?
}

/// What the server's form parser found.
struct ParsedForm: Decodable {
    let pairs: [[String]]
    let raw: String
}
