import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A request's URL is parsed once, when the request is built: the plain shape by
/// the runtime's parser, anything else by Foundation. Both reach the server as
/// the same target, and what a caller reads (`url`, the query) is as before.
@Suite struct RequestURLTests {
    /// Queries appended to the text of a plain URL read as `URLComponents` would make them.
    @Test func queryOnAPlainURLMatchesURLComponents() throws {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let items = [URLQueryItem(name: "q", value: "a b&c=d+é"), URLQueryItem(name: "flag", value: nil)]
        for text in ["http://h/p", "http://h", "https://h:8443/p?x=1", "http://h/p?", "http://h/p?x=1&", "http://h/a%20b"] {
            let extended = FiberRequest(url: text).query(items).url
            var components = try #require(URLComponents(string: text))
            var query = components.percentEncodedQuery ?? ""
            for item in items {
                if !query.isEmpty { query += "&" }
                query += item.name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
                if let value = item.value {
                    query += "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
                }
            }
            components.percentEncodedQuery = query
            #expect(extended.absoluteString == components.url?.absoluteString, "\(text)")
        }
        // A URL outside the plain shape (here with a fragment) takes Foundation's path and keeps its fragment.
        let fragment = FiberRequest(url: "http://h/p?x=1#top").query("y", "2").url
        #expect(fragment.absoluteString == "http://h/p?x=1&y=2#top")
    }

    @Test func urlsAreReadAsBefore() {
        let plain = FiberRequest(url: "http://example.com:8080/a/b?c=d")
        #expect(plain.url.host == "example.com" && plain.url.port == 8080 && plain.url.path == "/a/b" && plain.url.query == "c=d")
        #expect(FiberRequest(url: "HTTP://Example.com/").url.absoluteString == "HTTP://Example.com/")
        #expect(FiberRequest(url: URL(string: "https://x.test/y")!).url.absoluteString == "https://x.test/y")
        let moved = plain.url(URL(string: "https://other.test/z")!)
        #expect(moved.url.absoluteString == "https://other.test/z")
        var transport = TransportRequest(url: URL(string: "http://a.test/1"))
        transport.url = URL(string: "http://b.test/2")
        #expect(transport.url?.absoluteString == "http://b.test/2")
        #expect(TransportResponse(statusCode: 200, url: URL(string: "http://c.test/")).url?.host == "c.test")
    }

    /// Over the real transport: a plain URL, one that only Foundation reads (upper-case
    /// scheme and host, a fragment), and a query added to each reach the server as one target.
    @Test func bothParsersReachTheServerAsTheSameTarget() async throws {
        try await withLiveServer { server, transport in
            server.route("/p") { request in .ok(request.target) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let plain = try await fiber.send(FiberRequest(url: server.baseURL + "/p?a=1").query("b", "2 3"))
            #expect(plain.text == "/p?a=1&b=2%203")
            let upper = server.baseURL.replacingOccurrences(of: "http://", with: "HTTP://")
            let general = try await fiber.send(FiberRequest(url: upper + "/p?a=1#frag").query("b", "2 3"))
            #expect(general.text == "/p?a=1&b=2%203")
        }
    }
}
