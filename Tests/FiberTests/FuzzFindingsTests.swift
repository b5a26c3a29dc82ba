@testable import Fiber
import Foundation
import Testing

/// Inputs the fuzz targets (Fuzz/) found breaking a rule, kept as tests once fixed.
@Suite("Fuzz findings: headers and forms")
struct FiberFuzzFindingsTests {
    /// A year of many digits used to overflow the day count and crash; it is no date.
    @Test(arguments: ["Sun, 06 Nov 3333333330997 08:49:37 GMT", "Sun, 06 Nov -9223372036854775808 08:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT"])
    func aYearPast9999IsNoDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func fourDigitYearsStillRead() {
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("  Thu,  1 Jan 1970 0:0:0 GMT ") == Date(timeIntervalSince1970: 0))
    }

    /// Fullwidth digits are hex digits to `Character`, not to W3C: a trace ID of them is hashed,
    /// and a `traceparent` carrying them is not read.
    @Test func fullwidthHexDigitsAreNotW3CHex() {
        let fullwidth = String(repeating: "\u{FF11}", count: 32)
        let id = TraceParent.w3cTraceID(fullwidth)
        #expect(id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(TraceParent.traceID(in: "00-\(fullwidth)-00f067aa0ba902b7-00") == nil)
        #expect(TraceParent.traceID(in: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") == "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    /// A part's type with a line break used to end its `Content-Type` line and start
    /// another header of the part; it is escaped as names are.
    @Test func aLineBreakInAPartTypeIsEscaped() async throws {
        var form = MultipartForm(boundary: "B")
        form.append(Data("x".utf8), withName: "f", fileName: "a.txt", mimeType: "text/plain\r\nX-Injected: 1")
        let body = try await form.encoded().body.collected(upTo: 1 << 20)
        let expected = "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n"
            + "Content-Type: text/plain%0D%0AX-Injected: 1\r\n\r\nx\r\n--B--\r\n"
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }
}
