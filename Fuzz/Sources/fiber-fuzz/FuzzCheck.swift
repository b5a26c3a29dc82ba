#if canImport(Glibc)
import Glibc
#endif

/// How a target reports a broken rule: the message on standard error, then
/// an abort, which libFuzzer records as a crash with the input that caused it.
enum FuzzCheck {
    static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { fail(message()) }
    }

    static func fail(_ message: String) -> Never {
        printError("fiber-fuzz: rule broken: \(message)")
        abort()
    }

    static func printError(_ message: String) {
        var line = message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
