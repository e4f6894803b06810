#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PortalPredicate

/// Dates of the predicate language, as Unix seconds, and their two SQL spellings.
enum Dates {
    /// Seconds from 1970-01-01 to NSDate's reference date, 2001-01-01 (both UTC).
    static let referenceDateOffset = 978_307_200.0

    /// The current time, read once per compilation.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `CAST(value, "NSDate")`: a number counts seconds from 2001-01-01 (as NSDate does); text is
    /// an ISO-8601 date `YYYY-MM-DD`, optionally followed by `[T ]HH:MM[:SS[.fff]]` and `Z`.
    static func cast(_ value: Value) -> Double? {
        switch value {
        case .integer(let seconds): return Double(seconds) + referenceDateOffset
        case .real(let seconds): return seconds + referenceDateOffset
        case .text(let text): return parse(text)
        case .null, .blob: return nil
        }
    }

    static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var result = 0
            for byte in bytes[position..<position + digits] {
                guard byte >= 48, byte <= 57 else { return nil }
                result = result * 10 + Int(byte - 48)
            }
            position += digits
            return result
        }
        func expect(_ character: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == character else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if position < bytes.count, bytes[position] == 84 || bytes[position] == 32 {   // 'T' or ' '
            position += 1
            guard let hour = number(2), expect(58), let minute = number(2), hour < 24, minute < 60 else { return nil }
            var second = 0.0
            if expect(58) {
                guard let whole = number(2), whole < 61 else { return nil }
                second = Double(whole)
                if expect(46) {
                    var scale = 0.1
                    while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                        second += Double(bytes[position] - 48) * scale
                        scale /= 10
                        position += 1
                    }
                }
            }
            seconds += Double(hour * 3600 + minute * 60) + second
        }
        _ = expect(90)   // 'Z'
        return position == bytes.count ? seconds : nil
    }

    /// `YYYY-MM-DD HH:MM:SS`, the text form SQLite's date functions use.
    static func isoText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var yearText = "\(year)"
        while yearText.count < 4 { yearText = "0" + yearText }
        return "\(yearText)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
    }

    // Howard Hinnant's algorithms for the proleptic Gregorian calendar.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The date as SQL compared with `other`: Unix seconds when `other` holds a number, the ISO
    /// text otherwise, decided per row by `typeof` (a DATETIME column may hold either); a TEXT
    /// column holds no numbers, so there the text is bound as it is and an index can serve.
    static func sql(_ seconds: Double, against other: SQLFragment, isTextColumn: Bool) -> SQLFragment {
        if isTextColumn { return .bound(.text(isoText(seconds))) }
        let number: Value = seconds == seconds.rounded() && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .real(seconds)
        return "(CASE WHEN typeof(" + other + ") IN ('integer','real') THEN " + .bound(number)
            + " ELSE " + .bound(.text(isoText(seconds))) + " END)"
    }
}
