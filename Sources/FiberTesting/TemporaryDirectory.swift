import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Fresh directories for the servers the tests run as child processes.
public enum TemporaryDirectory {
    /// `mkdtemp` failed.
    public struct CreationError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates a new, empty directory `<tmp>/<prefix>-XXXXXX` and returns its path.
    ///
    /// - Throws: `CreationError` when `mkdtemp` fails.
    public static func make(prefix: String) throws(CreationError) -> String {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CreationError(description: "mkdtemp failed: errno \(errno)")
        }
        return String(cString: made)
    }
}
