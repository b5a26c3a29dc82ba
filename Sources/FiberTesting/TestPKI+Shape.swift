import Foundation
import X509

extension TestPKI {
    /// What a certificate is, beyond who it names and who signs it.
    struct Shape {
        /// A CA (BasicConstraints CA:TRUE) rather than a leaf.
        var isAuthority = false
        /// A CA's limit on the CAs below it.
        var pathLength: Int? = nil
        /// The subject alternative names: IP addresses or DNS names.
        var names: [String] = []
        var validity = Validity.current
        /// A leaf's ExtendedKeyUsage.
        var purpose = ExtendedKeyUsage.Usage.serverAuth
        /// A leaf's KeyUsage; nil leaves the extension out.
        var keyUsage: KeyUsage? = nil

        /// A CA, by default with no path length limit and valid now.
        static func authority(pathLength: Int? = nil, validity: Validity = .current) -> Shape {
            Shape(isAuthority: true, pathLength: pathLength, validity: validity)
        }

        /// A server's leaf for `names`.
        static func server(_ names: [String], _ validity: Validity = .current, keyUsage: KeyUsage? = nil) -> Shape {
            Shape(names: names, validity: validity, keyUsage: keyUsage)
        }

        /// A client's leaf, with no names.
        static let client = Shape(purpose: .clientAuth)
    }

    /// When a certificate is valid, relative to the PKI's `now`.
    enum Validity {
        /// From a day ago for 30 days.
        case current
        /// From 60 days ago to 30 days ago.
        case expired
        /// From 30 days ahead to 60 days ahead.
        case notYetValid

        /// The validity period.
        func period(around now: Date) -> ClosedRange<Date> {
            let day: TimeInterval = 24 * 60 * 60
            switch self {
            case .current: return now.addingTimeInterval(-day)...now.addingTimeInterval(30 * day)
            case .expired: return now.addingTimeInterval(-60 * day)...now.addingTimeInterval(-30 * day)
            case .notYetValid: return now.addingTimeInterval(30 * day)...now.addingTimeInterval(60 * day)
            }
        }
    }
}
