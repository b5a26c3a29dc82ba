import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Typed header fields, the header collection's set-or-add rules, status classes and
/// method properties; the fields checked as a real server receives them.
@Suite("Headers, status classes and methods")
struct HeaderConstructorsTests {
    @Test func constructorsNameTheirFields() {
        let fields: [(HTTPHeader, String, String)] = [
            (.accept("application/json"), "Accept", "application/json"),
            (.acceptCharset("utf-8"), "Accept-Charset", "utf-8"),
            (.acceptEncoding("gzip"), "Accept-Encoding", "gzip"),
            (.acceptLanguage("fr"), "Accept-Language", "fr"),
            (.authorization(bearerToken: "t0k"), "Authorization", "Bearer t0k"),
            (.authorization("Digest x"), "Authorization", "Digest x"),
            (.contentDisposition("attachment"), "Content-Disposition", "attachment"),
            (.contentEncoding("br"), "Content-Encoding", "br"),
            (.contentType("text/plain"), "Content-Type", "text/plain"),
            (.userAgent("probe/1"), "User-Agent", "probe/1"),
        ]
        for (field, name, value) in fields {
            #expect(field.name == name && field.value == value)
        }
    }

    @Test func basicAuthorizationIsBase64OfUserColonPassword() throws {
        let field = HTTPHeader.authorization(username: "Aladdin", password: "open sesame")
        #expect(field.value == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")  // RFC 7617 §2's example
        let unicode = HTTPHeader.authorization(username: "jür", password: "pä:ss")
        let encoded = try #require(unicode.value.split(separator: " ").last)
        #expect(Data(base64Encoded: String(encoded)).map { String(decoding: $0, as: UTF8.self) } == "jür:pä:ss")
    }

    @Test func acceptLanguageWeighsUpToSixDistinctTags() {
        let field = HTTPHeader.acceptLanguage(preferred: ["en-US", "", "fr", "EN-us", "de", "it", "es", "pt", "nl"])
        #expect(field.value == "en-US;q=1.0, fr;q=0.9, de;q=0.8, it;q=0.7, es;q=0.6, pt;q=0.5")
        #expect(HTTPHeader.acceptLanguage(preferred: []).value == "")
        #expect(HTTPHeader.defaultAcceptLanguage == (Locale.preferredLanguages.isEmpty
            ? nil : HTTPHeader.acceptLanguage(preferred: Locale.preferredLanguages)))
    }

    @Test func theDefaultUserAgentNamesTheLibraryAndPlatform() {
        let agent = HTTPHeader.defaultUserAgent
        #expect(agent.hasPrefix("Fiber (Linux "))
        #expect(agent.contains("; x86_64)") || agent.contains("; aarch64)"))
        #expect(agent.contains(") Swift/6"))
        #expect(HTTPHeaders.default["User-Agent"] == agent)
    }

    @Test func addReplacesAppendKeepsUpdateIsAdd() {
        var headers = HTTPHeaders([.contentType("a/b"), .accept("x/y"), .contentType("c/d")])
        #expect(headers.count == 2 && headers["content-type"] == "c/d")
        headers.add(.authorization(bearerToken: "1"))
        headers.add(name: "AUTHORIZATION", value: "Bearer 2")
        #expect(headers.values(name: "Authorization") == ["Bearer 2"])
        headers.update(name: "Accept", value: "z/z")
        headers.update(.accept("w/w"))
        #expect(headers.values(name: "accept") == ["w/w"])
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "set-cookie", value: "b=2")
        #expect(headers.values(name: "Set-Cookie") == ["a=1", "b=2"])
        headers.remove(name: "SET-COOKIE")
        #expect(!headers.contains(name: "Set-Cookie"))
    }

    @Test func dictionaryViewJoinsRepeatedFieldsUnderTheFirstName() {
        var headers = HTTPHeaders(["X-B": "2", "X-A": "1"])
        #expect(headers.map(\.name) == ["X-A", "X-B"])
        headers.append(name: "x-a", value: "3")
        #expect(headers.dictionary == ["X-A": "1, 3", "X-B": "2"])
    }

    @Test func headersRoundTripThroughCodableInOrderWithRepeats() throws {
        var headers = HTTPHeaders([.contentType("application/json")])
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "Set-Cookie", value: "b=2")
        let data = try JSONEncoder().encode(headers)
        #expect(try JSONDecoder().decode(HTTPHeaders.self, from: data) == headers)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("[{") && text.contains("\"name\":\"Set-Cookie\""))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HTTPHeaders.self, from: Data("{\"a\":\"b\"}".utf8)) }
    }

    @Test func statusCodesFallIntoTheirClasses() {
        let cases: [(Int, StatusCodeType)] = [
            (99, .unknown), (100, .informational), (199, .informational), (200, .successful), (299, .successful),
            (300, .redirection), (399, .redirection), (400, .clientError), (499, .clientError), (500, .serverError),
            (599, .serverError), (600, .unknown), (0, .unknown), (-1, .unknown), (-999, .cancelled),
        ]
        for (code, type) in cases { #expect(code.statusCodeType == type, "\(code)") }
    }

    @Test func methodsKnowWhetherTheyAreSafeIdempotentCacheable() {
        let table: [(HTTPMethod, Bool, Bool, Bool)] = [
            (.get, true, true, true), (.head, true, true, true), (.options, true, true, false),
            (.trace, true, true, false), (.put, false, true, false), (.delete, false, true, false),
            (.patch, false, false, false), (.post, false, false, false), (.connect, false, false, false),
            ("PURGE", false, false, false),
        ]
        for (method, safe, idempotent, cacheable) in table {
            #expect(method.isSafe == safe && method.isIdempotent == idempotent && method.isCacheable == cacheable, "\(method)")
        }
    }

    /// Through `Fiber` to a real server: typed fields set on a request arrive as written,
    /// a repeated field of `HTTPHeaders` arrives twice, and the response's class is read.
    @Test func typedFieldsArriveAtTheServer() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/who") { _ in .status(404) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            var extra = HTTPHeaders()
            extra.append(name: "X-Tag", value: "one")
            extra.append(name: "X-Tag", value: "two")
            let response = try await fiber.send(fiber.request(.get, "/who")
                .header(.authorization(username: "u", password: "p"))
                .header(.acceptLanguage(preferred: ["de-CH", "en"]))
                .headers(extra))
            #expect(response.statusCodeType == .clientError)
            let received = try #require(server.lastRequest)
            #expect(received.header("Authorization") == "Basic dTpw")
            #expect(received.header("Accept-Language") == "de-CH;q=1.0, en;q=0.9")
            #expect(received.headers.values(name: "X-Tag") == ["one", "two"])
        }
    }
}
