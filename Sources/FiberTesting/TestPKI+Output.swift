import Foundation
import X509

extension TestPKI {
    /// A folder the PKI's files go into, created when the value is made.
    struct Output {
        let folder: String

        init(_ folder: String) throws {
            self.folder = folder
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw TestCertificates.GenerationError(description: "cannot create the folder \(folder): \(error)")
            }
        }

        /// Writes `text` as the file `name`, replacing it if present.
        func write(_ name: String, _ text: String) throws {
            try write(name, Array(text.utf8))
        }

        /// Writes `bytes` as the file `name`, replacing it if present.
        func write(_ name: String, _ bytes: [UInt8]) throws {
            let path = folder + "/" + name
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw TestCertificates.GenerationError(description: "cannot write \(path): \(error)")
            }
        }
    }

    /// The certificates in PEM, one after the other, each ending in a newline.
    func pem(_ certificates: Certificate...) throws -> String {
        try certificates.map { try $0.serializeAsPEM().pemString + "\n" }.joined()
    }

    /// The certificate's DER encoding.
    func der(_ certificate: Certificate) throws -> [UInt8] {
        try certificate.serializeAsPEM().derBytes
    }
}
