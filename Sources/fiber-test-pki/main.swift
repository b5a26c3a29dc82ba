import FiberTesting
import Foundation

// `fiber-test-pki FOLDER`: writes a fresh test PKI (`TestPKI`) into FOLDER,
// for scripts and benchmarks that need the certificates the tests use.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1, let folder = arguments.first, !folder.hasPrefix("-") else {
    FileHandle.standardError.write(Data("""
        usage: fiber-test-pki FOLDER
        Writes a root and intermediate CA, a leaf for localhost, 127.0.0.1 and ::1, bad chains,
        a client identity and, under FOLDER/hardening, unusual certificates, with fresh keys.

        """.utf8))
    exit(64)
}
do {
    try TestPKI().write(into: folder)
} catch {
    FileHandle.standardError.write(Data("fiber-test-pki: \(error)\n".utf8))
    exit(1)
}
