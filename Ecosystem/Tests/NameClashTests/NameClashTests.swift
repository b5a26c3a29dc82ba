import AsyncHTTPClient
import Fiber
import FiberTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing
import Tracing

/// A file that imports Fiber beside NIO, NIOSSL, AsyncHTTPClient and
/// swift-distributed-tracing compiles: each clashing name is reachable as
/// `Fiber.Name` or by its module, and both clients answer from one process
/// (both HTTP parsers loaded: their C types must not be taken for one another).
@Suite("Names beside NIO, AsyncHTTPClient and Tracing")
struct NameClashTests {
    @Test func everyClashingNameIsReachableUnambiguously() throws {
        let fiberHeaders: Fiber.HTTPHeaders = ["Accept": "application/json"]
        let nioHeaders: NIOHTTP1.HTTPHeaders = ["Accept": "application/json"]
        #expect(fiberHeaders["accept"] == nioHeaders["accept"].first)

        let fiberMethod: Fiber.HTTPMethod = .post
        let nioMethod: NIOHTTP1.HTTPMethod = .POST
        #expect(fiberMethod.rawValue == nioMethod.rawValue)

        var fiberTLS = Fiber.TLSConfiguration()
        fiberTLS.minimumVersion = .tls13
        let nioTLS = NIOSSL.TLSConfiguration.makeClientConfiguration()
        #expect(fiberTLS.minimumVersion == .tls13 && nioTLS.minimumTLSVersion == .tlsv1)

        let fiberGroup: Fiber.EventLoopGroup = .shared
        let nioGroup: any NIOCore.EventLoopGroup = MultiThreadedEventLoopGroup.singleton
        #expect(!fiberGroup.loops.isEmpty)
        _ = nioGroup.next()

        // Fiber's finished-span record beside the tracing API's span protocol.
        let fiberSpanType: Fiber.Span.Type = Fiber.Span.self
        let tracingSpan: any Tracing.Span = NoOpTracer.NoOpSpan(context: .topLevel)
        #expect("\(fiberSpanType)" != "\(type(of: tracingSpan))")

        // Names spelled through the class, as a user in this file must.
        let configuration: Fiber.HTTPConfiguration = {
            var http = Fiber.HTTPConfiguration()
            http.tls = fiberTLS
            http.redirects = Fiber.RedirectPolicy(maxRedirects: 3)
            return http
        }()
        let request: FiberRequest = FiberRequest(url: "http://127.0.0.1:1/").method(fiberMethod)
        let ahcConfiguration = AsyncHTTPClient.HTTPClient.Configuration()
        #expect(configuration.redirects.maxRedirects == 3 && request.httpMethod == fiberMethod)
        #expect(ahcConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit > 0)
    }

    @Test func fiberAndAsyncHTTPClientBothAnswerInOneProcess() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/hello", respond: .ok("hi"))
        let fiber = Fiber(server.baseURL) { $0.http.maxConnectionsPerHost = 2 }
        let fromFiber = try await fiber.get("/hello")
        #expect(fromFiber.statusCode == 200 && String(decoding: fromFiber.data, as: UTF8.self) == "hi")

        let ahc = AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let response = try await ahc.execute(HTTPClientRequest(url: server.url("/hello")), timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1024)
            #expect(response.status == .ok && String(buffer: body) == "hi")
        } catch {
            Issue.record("AsyncHTTPClient failed: \(error)")
        }
        try await ahc.shutdown()
        await server.shutdown()
    }
}
