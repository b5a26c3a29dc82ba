import Crypto
import Foundation

/// The bytes of one record file of `DiskCacheStorage`, as a pure encoder and a validating decoder:
///
/// ```
/// "FBSC" │ version (2) │ header length (UInt32 BE) │ body length (UInt32 BE) │ header (JSON) │ body │ SHA-256 of all before (32)
/// ```
///
/// A file that is short, long, of another version, or whose digest does not
/// match (a torn write, a flipped bit, someone else's file) fails to decode:
/// the storage treats it as a miss and removes it.
package enum DiskRecordCodec {
    /// Why bytes are not a record.
    package enum DecodeError: Error, Equatable {
        case truncated
        case badMagic
        case unsupportedVersion(UInt8)
        case lengthMismatch
        case digestMismatch
        case badHeader
    }

    static let magic: [UInt8] = Array("FBSC".utf8)
    static let version: UInt8 = 2
    private static let prefixLength = 4 + 1 + 4 + 4
    private static let digestLength = SHA256.byteCount

    /// The file bytes of `entry`.
    ///
    /// - Throws: `EncodingError` if the header does not encode (it always does for valid records).
    package static func encode(_ entry: CacheRecord) throws -> Data {
        var header = entry
        header.body = Data()
        let headerBytes = try JSONEncoder().encode(header)
        var data = Data(capacity: prefixLength + headerBytes.count + entry.body.count + digestLength)
        data.append(contentsOf: magic)
        data.append(version)
        append(UInt32(clamping: headerBytes.count), to: &data)
        append(UInt32(clamping: entry.body.count), to: &data)
        data.append(headerBytes)
        data.append(entry.body)
        data.append(contentsOf: SHA256.hash(data: data))
        return data
    }

    /// The record in `data`.
    ///
    /// - Throws: `DecodeError` for anything but an intact record of this version.
    package static func decode(_ data: Data) throws(DecodeError) -> CacheRecord {
        let bytes = [UInt8](data)
        guard bytes.count >= prefixLength + digestLength else { throw .truncated }
        guard Array(bytes[0..<4]) == magic else { throw .badMagic }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        let headerLength = Int(readUInt32(bytes, at: 5))
        let bodyLength = Int(readUInt32(bytes, at: 9))
        let contentEnd = prefixLength + headerLength + bodyLength
        guard contentEnd + digestLength == bytes.count else {
            throw contentEnd + digestLength > bytes.count ? .truncated : .lengthMismatch
        }
        let digest = Array(SHA256.hash(data: bytes[0..<contentEnd]))
        guard digest == Array(bytes[contentEnd...]) else { throw .digestMismatch }
        let headerRange = prefixLength..<(prefixLength + headerLength)
        guard var entry = try? JSONDecoder().decode(CacheRecord.self, from: Data(bytes[headerRange])) else {
            throw .badHeader
        }
        entry.body = Data(bytes[headerRange.upperBound..<contentEnd])
        return entry
    }

    /// The bytes to read to know a record's key: the fixed prefix; then `headerLength(prefix)` more.
    static let fixedPrefixLength = prefixLength

    /// The header length announced by a file's first `fixedPrefixLength` bytes.
    ///
    /// - Throws: `DecodeError` when the prefix is not one of this version.
    static func headerLength(_ prefix: Data) throws(DecodeError) -> Int {
        let bytes = [UInt8](prefix)
        guard bytes.count == prefixLength else { throw .truncated }
        guard Array(bytes[0..<4]) == magic else { throw .badMagic }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        return Int(readUInt32(bytes, at: 5))
    }

    /// The key in a header read after the prefix (the digest is checked only by `decode`).
    ///
    /// - Throws: `DecodeError.badHeader` when it is not a record header.
    static func key(inHeader header: Data) throws(DecodeError) -> String {
        guard let entry = try? JSONDecoder().decode(CacheRecord.self, from: header) else { throw .badHeader }
        return entry.key
    }

    private static func append(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
