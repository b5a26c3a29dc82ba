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
