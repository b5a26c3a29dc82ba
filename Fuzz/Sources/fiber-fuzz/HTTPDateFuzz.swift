import Foundation
@testable import Fiber

/// The HTTP-date reader (`Expires`, `Date`, `Last-Modified`, `Retry-After`).
///
/// Rules: the fixed-layout fast path agrees with the lenient reading whenever
/// it answers; a date read, written back as an IMF-fixdate, reads as the same instant.
enum HTTPDateFuzz {
    static let target = FuzzTarget(name: "http-date", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        let date = HTTPDate.parse(text)
        if let fixed = HTTPDate.fixedLayout(text) {
            FuzzCheck.require(fixed == HTTPDate.lenient(text), "\(text): fixed layout \(fixed), lenient \(String(describing: HTTPDate.lenient(text)))")
        }
        guard let date, let written = imfFixdate(date) else { return }
        FuzzCheck.require(HTTPDate.parse(written) == date, "\(text) read as \(date); written as \(written) it reads \(String(describing: HTTPDate.parse(written)))")
        FuzzCheck.require(HTTPDate.fixedLayout(written) == date, "\(written) is not read by the fixed layout")
    }

    /// `date` as an IMF-fixdate, for years 0 to 9999.
    static func imfFixdate(_ date: Date) -> String? {
        let seconds = Int(date.timeIntervalSince1970)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let second = seconds - days * 86_400
        // H. Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = weekdays[((days % 7) + 7) % 7]
        let yearText = String(year).leftPadded(4)
        return "\(weekday), \(two(day)) \(months[month - 1]) \(yearText) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }

    static func seeds() -> [[UInt8]] {
        [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:60 GMT",
            "  Mon,  7 Feb 2022 1:2:3 GMT ", "Wed, 30 Feb 2000 12:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994", "Tue, 15 nov 2022 08:12:31 gmt",
        ].map { Array($0.utf8) }
    }
}
