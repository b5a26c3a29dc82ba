import Foundation

/// RFC 6265 §5.1.1: the date of a cookie's `Expires` attribute, read as browsers read
/// it. The text is cut into tokens at delimiters; the first token that looks like a
/// time, a day of the month, a month and a year gives each, in any order, whatever
/// else surrounds them, so `Wed, 09 Jun 2021 10:18:14 GMT`, the old Netscape
/// `Wednesday, 09-Jun-21 10:18:14 GMT` and `Jun 9 10:18:14 2021` all parse. The
/// instant is computed by the HTTP date parser's calendar (`HTTPDate.date`).
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or nil when a part is missing or out of range (a year before 1601, a
    /// day past its month's end, an hour past 23, a minute or second past 59).
    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let found = self.time(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = self.month(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        let (hour, minute, second) = time
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, hour <= 23, minute <= 59, second <= 59, day >= 1, day <= daysIn(month: month, year: year) else {
            return nil
        }
        return HTTPDate.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// `digits` digits at the token's start, then nothing or a non-digit and anything.
    private static func leadingNumber(_ token: Substring.UTF8View.SubSequence, digits: ClosedRange<Int>) -> Int? {
        let count = token.prefix(while: isDigit).count
        guard digits.contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss` with one or two digits each, then nothing or a non-digit and anything.
    private static func time(_ token: Substring.UTF8View.SubSequence) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var rest = token[...]
        while fields.count < 3 {
            guard let field = leadingNumber(rest, digits: 1...2) else { return nil }
            fields.append(field)
            rest = rest.dropFirst(rest.prefix(while: isDigit).count)
            if fields.count < 3 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// The month (from 0) of a token that starts with its three-letter name, in any case.
    private static func month(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let name = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: name)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 1: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 3, 5, 8, 10: 30
        default: 31
        }
    }
}
