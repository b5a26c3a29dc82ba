import Foundation

/// RFC 9110's preferred date format (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), parsed without a formatter.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

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
            // Digits are read unchecked and checked together below: one pass, no call per field.
            @inline(__always) func digit(_ i: Int) -> UInt { UInt(bytes[i]) &- 0x30 }
            @inline(__always) func isLetter(_ i: Int) -> Bool { (bytes[i] | 0x20) &- 0x61 < 26 }
            guard isLetter(0), isLetter(1), isLetter(2), isLetter(8), isLetter(9), isLetter(10),
                  bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
                  bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
                  bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "), bytes[26] == UInt8(ascii: "G"),
                  bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T") else { return nil }
            let digits = (digit(5), digit(6), digit(12), digit(13), digit(14), digit(15), digit(17), digit(18),
                          digit(20), digit(21), digit(23), digit(24))
            // A byte below "0" wraps around to a huge value: one comparison per digit.
            guard digits.0 < 10, digits.1 < 10, digits.2 < 10, digits.3 < 10, digits.4 < 10, digits.5 < 10,
                  digits.6 < 10, digits.7 < 10, digits.8 < 10, digits.9 < 10, digits.10 < 10, digits.11 < 10,
                  let month = month(UInt32(bytes[8] | 0x20) << 16 | UInt32(bytes[9] | 0x20) << 8 | UInt32(bytes[10] | 0x20))
            else { return nil }
            return date(year: Int(digits.2 * 1000 + digits.3 * 100 + digits.4 * 10 + digits.5), month: month,
                        day: Int(digits.0 * 10 + digits.1), hour: Int(digits.6 * 10 + digits.7),
                        minute: Int(digits.8 * 10 + digits.9), second: Int(digits.10 * 10 + digits.11))
        } ?? nil
    }

    /// The month (from 0) of its three lower-case letters packed into one number.
    private static func month(_ code: UInt32) -> Int? {
        switch code {
        case 0x6A_616E: 0  // jan
        case 0x66_6562: 1  // feb
        case 0x6D_6172: 2  // mar
        case 0x61_7072: 3  // apr
        case 0x6D_6179: 4  // may
        case 0x6A_756E: 5  // jun
        case 0x6A_756C: 6  // jul
        case 0x61_7567: 7  // aug
        case 0x73_6570: 8  // sep
        case 0x6F_6374: 9  // oct
        case 0x6E_6F76: 10  // nov
        case 0x64_6563: 11  // dec
        default: nil
        }
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

    /// The instant of a date and time in GMT (`month` from 0), nil when a field is out of range
    /// (the day is checked against 31, not the month's length). Years have four digits at most,
    /// as in every HTTP-date (a longer one would overflow the day count). Cookie dates use it too.
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (0...9999).contains(year), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else {
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
