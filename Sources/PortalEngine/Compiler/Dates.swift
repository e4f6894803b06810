#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PortalPredicate

/// Dates of the predicate language, as Unix seconds, and their two SQL spellings.
enum Dates {
    /// The current time, read once per compilation.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `CAST(value, "NSDate")`: a number counts seconds from 2001-01-01 (as NSDate does); text is
    /// an ISO-8601 date. Parsed by the same code as the in-memory evaluator, so both agree.
    static func cast(_ value: Value) -> Double? {
        switch value {
        case .integer(let seconds): return Double(seconds) + DateSemantics.referenceDateOffset
        case .real(let seconds): return seconds + DateSemantics.referenceDateOffset
        case .decimal(let seconds): return seconds.double + DateSemantics.referenceDateOffset
        case .text(let text): return DateSemantics.parse(text)
        case .null, .blob: return nil
        }
    }

    /// `YYYY-MM-DD HH:MM:SS`, the text form SQLite's date functions use; NULL outside years 1–9999.
    static func isoText(_ seconds: Double) -> Value {
        DateSemantics.text(seconds).map(Value.text) ?? .null
    }

    /// The date as SQL compared with `other`: Unix seconds when `other` holds a number, the ISO
    /// text otherwise, decided per row (a DATETIME column may hold either); a TEXT
    /// column holds no numbers, so there the text is bound as it is and an index can serve.
    static func sql(_ seconds: Double, against other: SQLFragment, isTextColumn: Bool,
                    _ dialect: any SQLDialect) -> SQLFragment {
        if isTextColumn { return .bound(isoText(seconds)) }
        let number: Value = seconds == seconds.rounded() && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .real(seconds)
        return "(CASE WHEN " + dialect.isNumber(other) + " THEN " + .bound(number)
            + " ELSE " + .bound(isoText(seconds)) + " END)"
    }
}
