import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

@Suite("Form bodies (application/x-www-form-urlencoded)")
struct FormURLEncodingTests {
    @Test(arguments: [
        ([("a", "b")], "a=b"),
        ([("a b", "c d")], "a+b=c+d"),
        ([("q", "1+1=2 & more")], "q=1%2B1%3D2+%26+more"),
        ([("safe", "*-._"), ("tilde", "~")], "safe=*-._&tilde=%7E"),
        ([("ü", "€"), ("emoji", "😀")], "%C3%BC=%E2%82%AC&emoji=%F0%9F%98%80"),
        ([("empty", ""), ("", "novalue")], "empty=&=novalue"),
        ([("line", "a\r\nb"), ("slash", "/?#[]@!$'(),;:")], "line=a%0D%0Ab&slash=%2F%3F%23%5B%5D%40%21%24%27%28%29%2C%3B%3A"),
        ([("dup", "1"), ("dup", "2")], "dup=1&dup=2"),
    ])
    func encodesAsTheURLStandardSays(items: [(String, String)], expected: String) {
        #expect(FormURLEncoding.encode(items.map { URLFormItem(name: $0.0, value: $0.1) }) == expected)
    }

    @Test func noItemsIsAnEmptyBody() {
        #expect(FormURLEncoding.encode([]) == "")
    }

    @Test func requestCarriesTheBodyAndItsType() {
        let request = FiberRequest(url: "http://127.0.0.1/login").method(.post).formBody(["user": "a b", "pass": "s3cr3t&"])
        #expect(request.body == Data("user=a+b&pass=s3cr3t%26".utf8))
        #expect(request.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.bodyStream == nil)
    }

    /// Python's `urllib.parse.parse_qsl` (strict, UTF-8) reads back exactly the pairs sent, in order.
    @Test(.enabled(if: PythonFormServer.isAvailable, "python3 with werkzeug is needed (Scripts/setup installs it)"),
          .timeLimit(.minutes(1)))
    func pythonReadsBackEveryPair() async throws {
        var generator = SplitMix64(seed: 7)
        let alphabet = Array("aZ09 +&=%~*-._/?#😀üß\u{00}\t\"'")
        let random = (0..<40).map { i in
            URLFormItem(name: "k\(i)" + String((0..<Int(generator.next() % 6)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }),
                        value: String((0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
        }
        let items = [URLFormItem(name: "email", value: "john.doe@example.com"), URLFormItem(name: "password", value: "s3cr3t")] + random
        try await PythonFormServer.with { fiber in
            let response = try await fiber.post("/form", form: items)
            #expect(response.statusCode == 200, "\(response.text)")
            let parsed = try response.decode(ParsedForm.self)
            #expect(parsed.pairs == items.map { [$0.name, $0.value] })
            #expect(parsed.raw == FormURLEncoding.encode(items))
        }
    }
}
