import Foundation

/// RFC 9110's preferred date format (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), parsed without a formatter.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// The months' three lower-case letters as one number each, for the fixed layout.
    private static let monthCodes: [UInt32] = months.map { $0.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    /// The date, or nil if `text` is not an IMF-fixdate.
    static func parse(_ text: String) -> Date? {
        // Servers send exactly the 29 bytes of an IMF-fixdate, and the cache reads one
        // per response: that layout is read in place, without allocating. Anything
        // else (other spacing, an out-of-range field) goes to the lenient reading,
        // which has the last word, so both give the same answer for every input.
        fixedLayout(text) ?? lenient(text)
    }

    /// `Www, DD Mon YYYY HH:MM:SS GMT` exactly (any letters for the weekday, the
    /// month in any case), else nil.
    static func fixedLayout(_ text: String) -> Date? {
        // In place (a native string's bytes are contiguous), without the copy `withUTF8` needs.
        text.utf8.withContiguousStorageIfAvailable { bytes -> Date? in
            guard bytes.count == 29 else { return nil }
            func byte(_ i: Int, is expected: Unicode.Scalar) -> Bool { bytes[i] == UInt8(ascii: expected) }
            func letter(_ i: Int) -> Bool { (bytes[i] | 0x20) >= 0x61 && (bytes[i] | 0x20) <= 0x7A }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for i in range {
                    guard bytes[i] >= 0x30, bytes[i] <= 0x39 else { return nil }
                    value = value * 10 + Int(bytes[i] - 0x30)
                }
                return value
            }
            guard letter(0), letter(1), letter(2), byte(3, is: ","), byte(4, is: " "), byte(7, is: " "),
                  letter(8), letter(9), letter(10), byte(11, is: " "), byte(16, is: " "), byte(19, is: ":"),
                  byte(22, is: ":"), byte(25, is: " "), byte(26, is: "G"), byte(27, is: "M"), byte(28, is: "T"),
                  let day = number(5..<7), let year = number(12..<16),
                  let hour = number(17..<19), let minute = number(20..<22), let second = number(23..<25) else {
                return nil
            }
            let code = UInt32(bytes[8] | 0x20) << 16 | UInt32(bytes[9] | 0x20) << 8 | UInt32(bytes[10] | 0x20)
            guard let month = monthCodes.firstIndex(of: code) else { return nil }
            return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        } ?? nil
    }

    /// Space-separated fields, surrounding whitespace ignored.
    static func lenient(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
              let month = months.firstIndex(of: parts[2].lowercased()) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        return date(year: year, month: month, day: day, hour: time[0], minute: time[1], second: time[2])
    }

    /// The instant of a date and time in GMT (`month` from 0), nil when a field is out of range.
    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else {
            return nil
        }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
