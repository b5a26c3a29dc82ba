import Fiber
@testable import FiberSharing
import Foundation
import Testing

/// The disk format: round trips, and every damaged form is refused.
@Suite struct DiskEntryCodecTests {
    let entry = CacheEntry(
        key: "GET:/users?page=2 0123456789abcdef", body: Data(#"[{"id":1,"name":"a"}]"#.utf8), statusCode: 200,
        headers: ["ETag": "\"v1\"", "Vary": "Accept"],
        freshness: CacheFreshness(responseTime: Date(timeIntervalSince1970: 1_000), initialAge: 3, lifetime: 60,
                                  staleWhileRevalidate: 5),
        storageMode: .memoryAndDisk, vary: ["accept": "application/json", "x-none": String?.none])

    @Test func roundTrips() throws {
        let decoded = try DiskEntryCodec.decode(try DiskEntryCodec.encode(entry))
        #expect(decoded == entry)
        #expect(decoded.etag == "\"v1\"")
    }

    @Test func everyTruncationIsRefused() throws {
        let bytes = try DiskEntryCodec.encode(entry)
        for length in 0..<bytes.count {
            #expect(throws: DiskEntryCodec.DecodeError.self) { try DiskEntryCodec.decode(bytes.prefix(length)) }
        }
    }

    @Test func everyFlippedByteIsRefused() throws {
        let bytes = try DiskEntryCodec.encode(entry)
        for index in stride(from: 0, to: bytes.count, by: 3) {
            var damaged = bytes
            damaged[index] ^= 0x41
            #expect(throws: DiskEntryCodec.DecodeError.self) { try DiskEntryCodec.decode(damaged) }
        }
    }

    @Test func extraBytesAndOtherVersionsAreRefused() throws {
        var longer = try DiskEntryCodec.encode(entry)
        longer.append(0)
        #expect(throws: DiskEntryCodec.DecodeError.lengthMismatch) { try DiskEntryCodec.decode(longer) }
        var other = try DiskEntryCodec.encode(entry)
        other[4] = 9
        #expect(throws: DiskEntryCodec.DecodeError.unsupportedVersion(9)) { try DiskEntryCodec.decode(other) }
        #expect(throws: DiskEntryCodec.DecodeError.badMagic) { try DiskEntryCodec.decode(Data(repeating: 0, count: 64)) }
    }

    @Test func fileNamesAreHashesWhateverTheKey() {
        for key in ["../../etc/passwd", "GET:/a b?c=d/e", "", String(repeating: "x", count: 10_000), "nul\0byte"] {
            let name = DiskCache.fileName(for: key)
            #expect(name.count == 64 + ".entry".count)
            #expect(name.allSatisfy { "0123456789abcdef.entry".contains($0) })
        }
        #expect(DiskCache.fileName(for: "a") != DiskCache.fileName(for: "b"))
    }
}
