@testable import Fiber
import Foundation
import Testing

/// The disk format: round trips, and every damaged form is refused.
@Suite struct DiskRecordCodecTests {
    let entry = CacheRecord(
        key: "GET:/users?page=2 0123456789abcdef", statusCode: 200, headers: ["ETag": "\"v1\"", "Vary": "Accept"],
        body: Data(#"[{"id":1,"name":"a"}]"#.utf8),
        freshness: CacheFreshness(responseTime: Date(timeIntervalSince1970: 1_000), initialAge: 3, lifetime: 60,
                                  staleWhileRevalidate: 5),
        vary: ["accept": "application/json", "x-none": String?.none], attributes: ["storageMode": "memoryAndDisk"])

    @Test func roundTrips() throws {
        let decoded = try DiskRecordCodec.decode(try DiskRecordCodec.encode(entry))
        #expect(decoded == entry)
        #expect(decoded.headers.first(name: "ETag") == "\"v1\"")
    }

    @Test func everyTruncationIsRefused() throws {
        let bytes = try DiskRecordCodec.encode(entry)
        for length in 0..<bytes.count {
            #expect(throws: DiskRecordCodec.DecodeError.self) { try DiskRecordCodec.decode(bytes.prefix(length)) }
        }
    }

    @Test func everyFlippedByteIsRefused() throws {
        let bytes = try DiskRecordCodec.encode(entry)
        for index in stride(from: 0, to: bytes.count, by: 3) {
            var damaged = bytes
            damaged[index] ^= 0x41
            #expect(throws: DiskRecordCodec.DecodeError.self) { try DiskRecordCodec.decode(damaged) }
        }
    }

    @Test func extraBytesAndOtherVersionsAreRefused() throws {
        var longer = try DiskRecordCodec.encode(entry)
        longer.append(0)
        #expect(throws: DiskRecordCodec.DecodeError.lengthMismatch) { try DiskRecordCodec.decode(longer) }
        var other = try DiskRecordCodec.encode(entry)
        other[4] = 9
        #expect(throws: DiskRecordCodec.DecodeError.unsupportedVersion(9)) { try DiskRecordCodec.decode(other) }
        #expect(throws: DiskRecordCodec.DecodeError.badMagic) { try DiskRecordCodec.decode(Data(repeating: 0, count: 64)) }
    }

    @Test func fileNamesAreHashesWhateverTheKey() {
        for key in ["../../etc/passwd", "GET:/a b?c=d/e", "", String(repeating: "x", count: 10_000), "nul\0byte"] {
            let name = DiskCacheStorage.fileName(for: key)
            #expect(name.count == 64 + ".entry".count)
            #expect(name.allSatisfy { "0123456789abcdef.entry".contains($0) })
        }
        #expect(DiskCacheStorage.fileName(for: "a") != DiskCacheStorage.fileName(for: "b"))
    }
}
