import Fiber
@testable import FiberCommandLine
import Foundation
import Testing

/// The pure pieces of the command line: request items, curl, JSON, progress.
@Suite struct FormattingTests {
    @Test func requestItemsInHTTPieNotation() throws {
        let items = try RequestItems(parsing: ["X-Trace:abc", "Accept: text/plain", "q==a b&c", "name=Ada", "age:=36",
                                               "tags:=[\"x\",\"y\"]", "url=http://x/y?z=1"])
        #expect(items.headers.map(\.name) == ["X-Trace", "Accept"])
        #expect(items.headers.map(\.value) == ["abc", "text/plain"])
        #expect(items.query.map(\.value) == ["a b&c"])
        #expect(items.jsonBody == #"{"name":"Ada","age":36,"tags":["x","y"],"url":"http://x/y?z=1"}"#)
        #expect(items.url(appendingQueryTo: "http://h/p") == "http://h/p?q=a%20b%26c")
        #expect(items.url(appendingQueryTo: "http://h/p?x=1") == "http://h/p?x=1&q=a%20b%26c")
    }

    @Test func badItemsAreRefusedWithTheReason() {
        #expect(throws: RequestItems.ParseError.self) { try RequestItems(parsing: ["nothing"]) }
        #expect(throws: RequestItems.ParseError.self) { try RequestItems(parsing: ["=value"]) }
        #expect(throws: RequestItems.ParseError.self) { try RequestItems(parsing: ["n:={broken"]) }
        #expect(RequestItems.jsonString("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test func curlCommandQuotesForTheShell() {
        let command = CurlCommand.render(method: "POST", url: "https://api.example.com/users?a=1",
                                         headers: [("Content-Type", "application/json"), ("X-Note", "it's")],
                                         body: .bytes(Data(#"{"name":"O'Brien"}"#.utf8)))
        #expect(command == #"curl -X POST -H 'Content-Type: application/json' -H 'X-Note: it'\''s' -H 'Expect:' --data-raw '{"name":"O'\''Brien"}' 'https://api.example.com/users?a=1'"#)
        #expect(CurlCommand.render(method: "GET", url: "http://h/", headers: [], body: nil) == "curl 'http://h/'")
        #expect(CurlCommand.render(method: "HEAD", url: "http://h/", headers: [], body: nil, insecure: true) == "curl --insecure --head 'http://h/'")
    }

    @Test func jsonIsIndentedInItsOwnOrder() {
        let printer = JSONPrettyPrinter(colors: false)
        #expect(printer.format(#"{"b":1,"a":[true,null,"x\"y"],"e":{},"f":[],"n":-1.5e3}"#) == """
            {
              "b": 1,
              "a": [
                true,
                null,
                "x\\"y"
              ],
              "e": {},
              "f": [],
              "n": -1.5e3
            }
            """)
        #expect(printer.format(" 42 ") == "42")
        for broken in ["{", #"{"a" 1}"#, "[1,]", "tru", #""unterminated"#, "{} {}", "01x"] {
            #expect(printer.format(broken) == nil, "\(broken)")
        }
        let colored = JSONPrettyPrinter(colors: true).format(#"{"k":"v"}"#) ?? ""
        #expect(colored.contains("\u{1B}[34;1m\"k\"\u{1B}[0m") && colored.contains("\u{1B}[32m\"v\"\u{1B}[0m"))
    }

    @Test func progressBar() {
        let bar = ProgressBar(width: 10)
        #expect(bar.line(done: 512, total: 1024) == "[#####     ]  50%  512 B / 1.0 KiB")
        #expect(bar.line(done: 3 * 1024 * 1024, total: nil) == "3.0 MiB received")
        #expect(bar.line(done: 10, total: 10).hasPrefix("[##########] 100%"))
        // Speed, and the time left at that speed when the total is known.
        #expect(bar.line(done: 512, total: 1024, bytesPerSecond: 128) == "[#####     ]  50%  512 B / 1.0 KiB  128 B/s  ETA 0:04")
        #expect(bar.line(done: 2048, total: nil, bytesPerSecond: 2048) == "2.0 KiB received  2.0 KiB/s")
        #expect(bar.line(done: 10, total: 10, bytesPerSecond: 5) == "[##########] 100%  10 B / 10 B  5 B/s")
        #expect(bar.line(done: 1, total: 2, bytesPerSecond: 0) == bar.line(done: 1, total: 2))
        #expect(ProgressBar.clock(0.2) == "0:01" && ProgressBar.clock(61) == "1:01" && ProgressBar.clock(3725) == "1:02:05")
    }
}
