import Testing
@testable import FiberRuntime

/// The fast URL parser must agree with the general one (Foundation's `URL`)
/// on every URL it accepts, and hand everything else over to it.
@Suite("Plain request URLs")
struct PlainURLTests {
    static let accepted = [
        "http://127.0.0.1:8080/", "http://localhost", "https://api.example.com", "http://h:80/a/b?c=d&e=f",
        "https://h:8443/x?y", "http://h?q=1", "http://h/?", "http://h/a/../b/./c", "http://h/%41%7e?x=%2F",
        "http://h/p;param/q@r:s!$&'()*+,=", "http://h/~user/_x-y.z", "http://sub-1.h-2.example/", "http://h:0080/",
        "http://h:1/", "http://h:65535/", "http://h//double//slash", "http://h/a?b?c", "https://1.2.3.4/",
    ]

    static let handedOver = [
        "HTTP://h/", "http://H/", "http://[::1]:8080/", "http://u:p@h/", "http://h/#frag", "http://h/a b",
        "http://h/%zz", "http://h/%4", "http://h/é", "http://h:/", "http://h:65536/", "http://h:0/", "http://h:123456/",
        "ftp://h/", "http:/h", "http://", "http://h/\"quoted\"", "http://h/{x}", "http://h/a|b", "http://h\\x",
    ]

    @Test(arguments: accepted)
    func agreesWithTheGeneralParser(url: String) throws {
        let plain = try #require(HTTPTarget.parsePlain(url))
        let general = try HTTPTarget.parseWithURL(url)
        #expect(plain == general)
        #expect(try HTTPTarget(url) == general)
    }

    @Test(arguments: handedOver)
    func handsEverythingElseOver(url: String) {
        #expect(HTTPTarget.parsePlain(url) == nil)
        // Whatever the general parser says (a target or .invalidURL) is what the public initializer says.
        let general = Result { try HTTPTarget.parseWithURL(url) }
        let viaInit = Result { try HTTPTarget(url) }
        switch (general, viaInit) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)):
            #expect((a as? HTTPClientError)?.kind == .invalidURL && (b as? HTTPClientError)?.kind == .invalidURL)
        default: Issue.record("the two parsers disagree on \(url)")
        }
    }
}
