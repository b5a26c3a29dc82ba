@testable import Fiber
import FiberRuntime
import Foundation
import Testing

@Suite struct CacheControlTests {
    /// The byte reading of ASCII values agrees with the `Substring` reading on every input:
    /// directives in any case, spaces, tabs, quotes, signs, overflowing numbers, empty
    /// directives, and every one-byte change of a value that holds them all.
    @Test func theByteReadingAgreesWithTheSubstringReading() {
        var inputs = [
            "", ",", ",,", " ", "no-store", "NO-STORE", "No-Cache", "max-age=60", "max-age = 60", "max-age=\t60\t",
            "max-age=\"60\"", "max-age=\"\"60\"\"", "max-age=\" 60\"", "max-age=+7", "max-age=-7", "max-age=-", "max-age=+",
            "max-age=", "max-age", "max-age=1e3", "max-age=0x10", "max-age=9223372036854775807", "max-age=9223372036854775808",
            "max-age=-9223372036854775808", "max-age=-9223372036854775809", "max-age=99999999999999999999",
            "s-maxage=30, max-age=60", "must-revalidate,proxy-revalidate", "private, public", "stale-while-revalidate=15",
            "max-age=60, must-revalidate", "public, max-age=31536000, immutable", "no-cache=\"Set-Cookie, X\"", " ,max-age=5, ",
            "maxage=5", "max-age5", "max-ag=5", "max-agex=5", "x-max-age=5", "max-age=5=6", "=5", "max-age==5",
            "\tno-store\t", "no-store;", "no store", "max-age=60\u{A0}", "\u{A0}no-store", "nö-store", "max-age=６０",
        ]
        inputs += everyOneByteChange(of: "Max-Age=60, no-cache, s-maxage=\"30\", stale-while-revalidate=-15, PRIVATE,public",
                                     using: " \t,=\"+-09aAmMxX;")
        for input in inputs {
            #expect(CacheControl(input) == CacheControl.reading(input), "\(input)")
        }
        #expect(CacheControl("max-age=60, must-revalidate") == CacheControl.reading("max-age=60, must-revalidate"))
        #expect(CacheControl("max-age=60, must-revalidate").maxAge == 60 && CacheControl("MAX-AGE=60").mustRevalidate == false)
    }
}

@Suite struct FieldListTests {
    static let lists = [
        "", ",", " , ", "*", " * ", "a,*", "*,a", "**", "Accept-Encoding", "accept-encoding, Origin", "Origin,accept-encoding",
        "ACCEPT,\tX-Y ,x-y", "a,,b", ",a,", "keep-alive", "Keep-Alive, Upgrade", "close", " close ", "closed", "close;x",
        "upgrade,close", "x-close", "\tUPGRADE\t", "Accept-Ëncoding", "accept\u{A0}", "a\u{301},b", "close\u{301}",
    ]

    /// Vary names read over bytes agree with the `Substring` reading, one value or two.
    @Test func varyNamesAgreeWithTheSubstringReading() {
        let values = Self.lists + everyOneByteChange(of: "Accept-Encoding, Origin,X-Y", using: " \t,*aAzZ-")
        for value in values {
            #expect(HTTPCacheRules.varyNames(values: [value]) == HTTPCacheRules.readingVaryNames([value]), "\(value)")
            #expect(HTTPCacheRules.varyNames(values: [value, "origin"]) == HTTPCacheRules.readingVaryNames([value, "origin"]))
        }
        #expect(HTTPCacheRules.varyNames(values: ["Accept-Encoding"]) == ["accept-encoding"])
        #expect(HTTPCacheRules.varyNames(values: ["B, a", "A"]) == ["a", "b"] && HTTPCacheRules.varyNames(values: ["a", "*"]) == nil)
    }

    /// A token found over bytes is the one the text reading finds, in any case, among several fields.
    @Test func tokensAreFoundAsTheTextReadingFindsThem() {
        func reference(_ headers: HTTPHeaders, _ token: String, _ name: String) -> Bool {
            headers.values(name: name).contains { value in
                value.split(separator: ",").contains {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased() == token.lowercased()
                }
            }
        }
        for value in Self.lists {
            for token in ["close", "keep-alive", "upgrade", "accept-encoding", "*"] {
                let headers = HTTPHeaders([("Connection", value), ("X", "close"), ("connection", "other")])
                #expect(headers.containsToken(token, in: "Connection") == reference(headers, token, "Connection"), "\(value) \(token)")
            }
        }
        #expect(HTTPHeaders([("Connection", "keep-alive"), ("CONNECTION", "Close")]).containsToken("close", in: "connection"))
        #expect(!HTTPHeaders([("Connection", "closed")]).containsToken("close", in: "Connection"))
        #expect(!HTTPHeaders([("Connection", "a,,b"), ("Connection", " , ")]).containsToken("", in: "Connection"))
    }
}
