#if canImport(Glibc)
import Glibc
#endif

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    guard let file = fopen(path, "wb") else { throw POSIXErrorCode(rawValue: errno).map { $0 as any Error } ?? CancellationError() }
    defer { fclose(file) }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
}

func removeFile(_ path: String) { unlink(path) }

extension POSIXErrorCode: @retroactive Error {}
