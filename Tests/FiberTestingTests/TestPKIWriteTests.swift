import FiberTesting
import Foundation
import Testing
import X509

/// `TestPKI` written into a folder of the caller's choice, and the
/// `fiber-test-pki` command that does the same from scripts.
@Suite struct TestPKIWriteTests {
    static func temporaryFolder(_ name: String) -> String {
        NSTemporaryDirectory() + "fiber-pki-test-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    static func fileNames(in folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    }

    /// The whole file set, in a folder made with its parents, and fresh keys on every write.
    @Test func writesTheWholeFileSetWithFreshKeys() throws {
        let folder = Self.temporaryFolder("write") + "/nested/pki"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestPKI().write(into: folder)
        #expect(try Self.fileNames(in: folder) == Set(TestPKI.files + ["hardening"]))
        #expect(try Self.fileNames(in: folder + "/hardening") == Set(TestPKI.hardeningFiles))
        let pki = TestCertificates(folder: folder)
        let firstKey = try pki.privateKey("leaf.key")
        let firstRoot = try pki.certificates("root.pem")

        try TestPKI().write(into: folder)
        #expect(try pki.privateKey("leaf.key") != firstKey)
        #expect(try pki.certificates("root.pem") != firstRoot)
        #expect(try pki.certificates("chain.pem")[0].publicKey == pki.privateKey("leaf.key").publicKey)
    }

    /// Validity is counted from the PKI's `now`: a PKI of 90 days ago has expired today.
    @Test func validityIsCountedFromNow() throws {
        let folder = Self.temporaryFolder("now")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let then = Date(timeIntervalSinceNow: -90 * 24 * 60 * 60)
        try TestPKI(now: then).write(into: folder)
        let root = try #require(try TestCertificates(folder: folder).certificates("root.pem").first)
        #expect(abs(root.notValidBefore.timeIntervalSince(then) + 24 * 60 * 60) < 2)
        #expect(root.notValidAfter < Date())
    }

    /// A folder that cannot be made (a file stands in its path) fails with a sentence naming it.
    @Test func aFolderThatCannotBeMadeIsAGenerationError() throws {
        let file = Self.temporaryFolder("blocked")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a folder".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let error = #expect(throws: TestCertificates.GenerationError.self) {
            try TestPKI().write(into: file + "/pki")
        }
        #expect(error?.description.contains(file + "/pki") == true)
        #expect(error?.localizedDescription == error?.description)
    }
}

/// `fiber-test-pki FOLDER` run as a child process (built beside the tests by
/// `swift build`; `Scripts/test` builds it first).
@Suite(.timeLimit(.minutes(2)), .enabled(if: FiberTestPKIBinary.exists, "the fiber-test-pki binary is not built"))
struct FiberTestPKICommandTests {
    @Test func writesTheFileSetIntoTheFolderGiven() async throws {
        let folder = TestPKIWriteTests.temporaryFolder("command")
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: folder + ".log")
        }
        let child = try ChildProcess.spawn(FiberTestPKIBinary.path, arguments: [folder], output: folder + ".log")
        let succeeded = await child.waitForSuccess(timeout: .seconds(60))
        #expect(succeeded, "\(child.exitDescription)")
        #expect(try TestPKIWriteTests.fileNames(in: folder) == Set(TestPKI.files + ["hardening"]))
        #expect(try TestPKIWriteTests.fileNames(in: folder + "/hardening") == Set(TestPKI.hardeningFiles))
        let pki = TestCertificates(folder: folder)
        let chain = try pki.certificates("chain.pem")
        let root = try #require(try pki.certificates("root.pem").first)
        #expect(chain.count == 2 && chain[1].isIssued(by: root) && chain[0].isIssued(by: chain[1]))
    }

    @Test func withoutAFolderItPrintsItsUsageAndFails() async throws {
        let log = TestPKIWriteTests.temporaryFolder("usage") + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        for arguments in [[], ["a", "b"], ["--help"]] {
            let child = try ChildProcess.spawn(FiberTestPKIBinary.path, arguments: arguments, output: log)
            let succeeded = await child.waitForSuccess(timeout: .seconds(30))
            #expect(!succeeded && child.exitDescription == "exit status 64", "\(arguments)")
            let output = try String(contentsOfFile: log, encoding: .utf8)
            #expect(output.hasPrefix("usage: fiber-test-pki FOLDER"), "\(arguments)")
        }
    }
}

/// The `fiber-test-pki` executable beside the test bundle.
enum FiberTestPKIBinary {
    static let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("fiber-test-pki").path
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }
}
