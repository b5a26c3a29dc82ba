import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import HTTPTypes
import Testing

/// Fiber's requests, responses and header fields as swift-http-types sees them, and back.
@Suite("swift-http-types at the edge of Fiber", .timeLimit(.minutes(1)))
struct HTTPTypesConversionTests {
    @Test func headerFieldsKeepTheirOrderRepeatsAndSpelling() throws {
        let headers: HTTPHeaders = HTTPHeaders([
            ("Set-Cookie", "a=1; Path=/"), ("x-trace", "t"), ("Set-Cookie", "b=2"), ("Accept", "text/html, */*;q=0.8"),
        ])
        let fields = try HTTPFields(validating: headers)
        #expect(fields.map(\.name.rawName) == ["Set-Cookie", "x-trace", "Set-Cookie", "Accept"])
        #expect(fields[values: .setCookie] == ["a=1; Path=/", "b=2"])
        let back = HTTPHeaders(fields)
        #expect(back == headers)
        #expect(back.values(name: "set-cookie") == ["a=1; Path=/", "b=2"])
    }

    /// Names that are not tokens and values that HTTPFields would rewrite are refused,
    /// naming the field (never its value, which may be a secret).
    @Test(arguments: [
        ("Bad Name", "v", HTTPTypesConversionError.Kind.invalidFieldName),
        ("", "v", .invalidFieldName),
        ("X-Ä", "v", .invalidFieldName),
        ("Colon:", "v", .invalidFieldName),
        ("X-Injected", "a\r\nSet-Cookie: evil=1", .invalidFieldValue),
        ("X-Nul", "a\u{0}b", .invalidFieldValue),
        ("X-Spaced", " padded ", .invalidFieldValue),
    ])
    func invalidFieldsAreATypedError(name: String, value: String, kind: HTTPTypesConversionError.Kind) {
        let headers = HTTPHeaders([("Accept", "*/*"), (name, value)])
        #expect(throws: HTTPTypesConversionError(kind, subject: name)) { try HTTPFields(validating: headers) }
    }

    @Test func anHTTPRequestBecomesAFiberRequestAndBack() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Tag")), value: "one"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Tag")), value: "two"))
        let original = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/items/1?force=true",
                                   headerFields: fields)
        let request = FiberRequest(original, body: Data("payload".utf8))
        #expect(request.httpMethod == .put)
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/items/1?force=true")
        #expect(request.headers.values(name: "X-Tag") == ["one", "two"])
        #expect(request.body == Data("payload".utf8))
        let back = try HTTPRequest(request)
        #expect(back == original)
    }

    @Test func aFiberRequestGivesItsDefaultPortlessAuthority() throws {
        let request = try HTTPRequest(FiberRequest(url: "https://api.example.com/search?q=a%20b").method("PURGE"))
        #expect(request.method.rawValue == "PURGE")
        #expect(request.scheme == "https" && request.authority == "api.example.com" && request.path == "/search?q=a%20b")
        let local = try HTTPRequest(FiberRequest(url: "http://[::1]:8080/x"))
        #expect(local.authority == "[::1]:8080" && local.path == "/x")
    }

    @Test func whatHTTPTypesCannotHoldIsATypedError() {
        #expect(throws: HTTPTypesConversionError(.invalidMethod, subject: "NOT A TOKEN")) {
            try HTTPRequest(FiberRequest(url: "http://127.0.0.1/").method("NOT A TOKEN"))
        }
        #expect(throws: HTTPTypesConversionError(.invalidURL, subject: "not a url")) {
            try HTTPRequest(FiberRequest(url: "not a url"))
        }
        let request = FiberRequest(url: "http://127.0.0.1/")
        for code in [-1, 1000, Int.max] {
            #expect(throws: HTTPTypesConversionError(.invalidStatus, subject: String(code))) {
                try HTTPResponse(FiberResponse(data: Data(), statusCode: code, request: request))
            }
        }
        #expect(throws: HTTPTypesConversionError(.invalidFieldValue, subject: "X-Bad")) {
            try HTTPResponse(FiberResponse(data: Data(), statusCode: 200, headers: ["X-Bad": "a\nb"], request: request))
        }
    }

    /// A request without an authority is sent by nobody: `send` throws `.invalidURL`.
    @Test func anHTTPRequestWithoutAnAuthorityFailsToSend() async {
        let mock = MockTransport()
        let fiber = Fiber(baseURL: URL(fileURLWithPath: "/"), transport: mock)
        let request = FiberRequest(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/only/a/path"))
        do {
            try await fiber.send(request)
        } catch FiberError.invalidURL(let text) {
            #expect(text == "/only/a/path")
        } catch {
            Issue.record("expected .invalidURL, got \(error)")
        }
        #expect(mock.requests.isEmpty)
    }

    /// The whole way over a real socket: an `HTTPRequest` sent by Fiber, the response
    /// read back as an `HTTPResponse`, repeated fields intact both ways.
    @Test func aRoundTripOverLoopback() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "fiber-http-types-test")
        let transport = HTTPTransport(eventLoopGroup: group)
        let server = try await TestHTTPServer.start(on: group.loops[0])
        server.route("POST", "/echo") { request in
            var response = TestResponse.bytes(request.body, status: 201)
            for value in request.headers.values(name: "X-Tag") { response = response.withHeader("Set-Cookie", value) }
            return response
        }
        let fiber = Fiber(server.baseURL) { $0.transport = transport }
        var fields = HTTPFields()
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Tag")), value: "a=1"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Tag")), value: "b=2"))
        let authority = String(server.baseURL.dropFirst("http://".count))
        let request = HTTPRequest(method: .post, scheme: "http", authority: authority, path: "/echo", headerFields: fields)

        let response = try await fiber.send(FiberRequest(request, body: Data("hello".utf8)))
        let head = try HTTPResponse(response)
        #expect(head.status == .created)
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(response.text == "hello")
        #expect(server.lastRequest?.headers.values(name: "x-tag") == ["a=1", "b=2"])

        let streamed = try await fiber.stream(FiberRequest(request, body: .bytes(Array("again".utf8))))
        let streamedHead = try HTTPResponse(streamed)
        #expect(streamedHead.status.code == 201)
        #expect(streamedHead.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(try await streamed.body.collect() == Data("again".utf8))

        await transport.shutdown()
        await server.shutdown()
        let leaked = try await group.leakedHandles()
        #expect(leaked.isEmpty)
        try await group.shutdown()
    }
}
