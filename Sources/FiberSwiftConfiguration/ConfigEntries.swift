import Fiber
import FiberRuntime
import Foundation

/// The two keys whose values are lists of small records, one record a string,
/// so that they fit an environment variable as well as a file.
enum ConfigEntries {
    /// Header fields from `"Name: value"` entries, in their order (a name may repeat).
    ///
    /// - Throws: `FiberConfigurationError` for `key` naming the first entry without a
    ///   colon, with a name that is not an HTTP token or a value with a control character.
    static func headers(_ entries: [String], key: String) throws(FiberConfigurationError) -> Fiber.HTTPHeaders {
        var headers = Fiber.HTTPHeaders()
        for (index, entry) in entries.enumerated() {
            guard let colon = entry.firstIndex(of: ":") else {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) must be \"Name: value\", not \"\(entry)\"")
            }
            let name = trimmed(entry[..<colon])
            let value = trimmed(entry[entry.index(after: colon)...])
            guard Fiber.HTTPHeaders.isToken(name) else {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) has no valid header name before its colon: \"\(entry)\"")
            }
            guard Fiber.HTTPHeaders.isValidValue(value) else {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) (\(name)) has a control character in its value")
            }
            headers.append(name: name, value: value)
        }
        return headers
    }

    /// Pins by host from `"host=sha256/BASE64"` (a public key's SHA-256) and
    /// `"host=PATH"` (a whole certificate, DER or PEM, read now) entries; a host
    /// may have several.
    ///
    /// - Throws: `FiberConfigurationError` for `key` naming the first entry without
    ///   `=`, with an empty host, a digest that is not base64 of 32 bytes, or a file
    ///   that cannot be read or holds no certificate.
    static func pins(_ entries: [String], key: String) throws(FiberConfigurationError) -> [String: [Fiber.CertificatePin]] {
        var pins: [String: [Fiber.CertificatePin]] = [:]
        for (index, entry) in entries.enumerated() {
            guard let equals = entry.firstIndex(of: "=") else {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) must be \"host=sha256/BASE64\" or \"host=FILE\", not \"\(entry)\"")
            }
            let host = trimmed(entry[..<equals])
            let pin = trimmed(entry[entry.index(after: equals)...])
            guard !host.isEmpty, !pin.isEmpty else {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) needs a host before \"=\" and a pin after it: \"\(entry)\"")
            }
            do {
                let made = pin.hasPrefix("sha256/") ? try Fiber.CertificatePin.publicKeySHA256(base64: pin)
                                                    : try Fiber.CertificatePin.certificate(file: pin)
                pins[host, default: []].append(made)
            } catch {
                throw FiberConfigurationError(key: key, reason: "entry \(index + 1) (\(host)): \(error)")
            }
        }
        return pins
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }
}
