import Foundation

/// The language's rules for values, as the in-memory evaluator applies them: ordering across
/// storage classes, affinity conversions, text rendering of numbers, and arithmetic. They are
/// SQLite's rules (the engine's first database), written down once here; SQL dialects render
/// predicates that give the same rows, which the differential tests check. Nothing here builds SQL.
enum ValueSemantics {
    /// NULL < INTEGER/REAL < TEXT < BLOB; numbers numerically (exactly, also between integer and
    /// real), text by UTF-8 bytes (BINARY collation), blobs by bytes. Returns -1, 0 or 1.
    static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.decimal, _), (_, .decimal): return compare(a.approximated, b.approximated)
        case let (.integer(x), .integer(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.real(x), .real(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.integer(x), .real(y)): return compare(integer: x, real: y)
        case let (.real(x), .integer(y)): return -compare(integer: y, real: x)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case let (.text(x), .text(y)): return TextMatching.compare(x, y)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case let (.blob(x), .blob(y)):
            for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
            return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
        }
    }

    /// An exact comparison of an integer with a real (as sqlite3IntFloatCompare).
    static func compare(integer i: Int64, real r: Double) -> Int {
        if r.isNaN { return 1 }
        if r < -9223372036854775808.0 { return 1 }
        if r >= 9223372036854775808.0 { return -1 }
        let truncated = Int64(r.rounded(.towardZero))
        if i != truncated { return i < truncated ? -1 : 1 }
        let fraction = r - r.rounded(.towardZero)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// The two operands of a comparison after SQLite's affinity rules: a numeric-affinity side
    /// makes number-like text on the other side (TEXT, BLOB or no affinity) a number; a TEXT side
    /// makes a number on a side with no affinity text.
    static func applyAffinities(_ a: Value, _ aAffinity: Affinity?, _ b: Value, _ bAffinity: Affinity?) -> (Value, Value) {
        if let aAffinity, aAffinity.isNumeric, !(bAffinity?.isNumeric ?? false) {
            return (a, numericAffinity(b))
        }
        if let bAffinity, bAffinity.isNumeric, !(aAffinity?.isNumeric ?? false) {
            return (numericAffinity(a), b)
        }
        if aAffinity == .text, bAffinity == nil { return (a, textAffinity(b)) }
        if bAffinity == .text, aAffinity == nil { return (textAffinity(a), b) }
        return (a, b)
    }

    /// NUMERIC affinity: text that is a well-formed number (spaces around allowed, no hex)
    /// becomes INTEGER or REAL; anything else stays.
    static func numericAffinity(_ v: Value) -> Value {
        guard case .text(let s) = v, let number = wellFormedNumber(s) else { return v }
        return number
    }

    /// TEXT affinity: numbers become their text.
    static func textAffinity(_ v: Value) -> Value {
        switch v {
        case .integer, .real, .decimal: return .text(text(of: v) ?? "")
        default: return v
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }

    /// The number a whole text spells (SQLite's well-formed integer or real literal), if any.
    static func wellFormedNumber(_ s: String) -> Value? {
        var bytes = Array(s.utf8)[...]
        while let b = bytes.first, isSpace(b) { bytes.removeFirst() }
        while let b = bytes.last, isSpace(b) { bytes.removeLast() }
        guard let (value, used) = numericPrefix(bytes), used == bytes.count else { return nil }
        return value
    }

    /// The longest prefix of `bytes` that reads as a number, and how many bytes it took.
    static func numericPrefix(_ bytes: ArraySlice<UInt8>) -> (Value, Int)? {
        let b = Array(bytes)
        var i = 0
        if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
        let digitsStart = i
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        var digits = i - digitsStart
        var isReal = false
        if i < b.count, b[i] == 0x2E {
            var j = i + 1
            while j < b.count, b[j] >= 0x30, b[j] <= 0x39 { j += 1 }
            if digits > 0 || j > i + 1 { digits += j - i - 1; isReal = true; i = j }
        }
        guard digits > 0 else { return nil }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            var j = i + 1
            if j < b.count, b[j] == 0x2B || b[j] == 0x2D { j += 1 }
            let expStart = j
            while j < b.count, b[j] >= 0x30, b[j] <= 0x39 { j += 1 }
            if j > expStart { isReal = true; i = j }
        }
        let literal = String(decoding: b[0..<i], as: UTF8.self)
        if !isReal, let integer = Int64(literal) { return (.integer(integer), i) }
        guard let real = Double(literal) else { return nil }
        return (.real(real), i)
    }

    /// A value as a number for arithmetic: text and blobs by their numeric prefix (else 0), as
    /// SQLite does; NULL stays NULL.
    static func number(_ v: Value) -> Value {
        switch v {
        case .null, .integer, .real: return v
        case .decimal: return v.approximated
        case .text(let s): return numericPrefix(Array(s.utf8)[...])?.0 ?? .integer(0)
        case .blob(let bytes): return numericPrefix(bytes[...])?.0 ?? .integer(0)
        }
    }

    /// SQLite's text of a value (`CAST(x AS TEXT)`); nil for NULL.
    static func text(of v: Value) -> String? {
        switch v {
        case .null: return nil
        case .integer(let i): return String(i)
        case .real(let r): return realText(r)
        case .decimal(let d): return realText(d.double)
        case .text(let s): return s
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `%!.15g`: 15 significant digits, always with a decimal point (`1.0`, `1.0e+20`).
    static func realText(_ r: Double) -> String {
        if r.isNaN { return "" }
        if r.isInfinite { return r < 0 ? "-Inf" : "Inf" }
        var s = String(format: "%.15g", r)
        if let e = s.firstIndex(of: "e") {
            if !s[..<e].contains(".") { s.insert(contentsOf: ".0", at: e) }
        } else if !s.contains(".") {
            s += ".0"
        }
        return s
    }

    /// `+ - * / **` on numbers: integers stay integers unless they overflow (then real, as SQLite).
    /// The bitwise operators as `bitwise` has them.
    static func arithmetic(_ a: Value, _ op: ArithmeticOperator, _ b: Value) -> Value {
        if op.isBitwise { return bitwise(a, op, b) }
        let x = number(a), y = number(b)
        if x.isNull || y.isNull { return .null }
        switch op {
        case .add, .subtract, .multiply:
            if case .integer(let i) = x, case .integer(let j) = y {
                let (result, overflow) = switch op {
                case .add: i.addingReportingOverflow(j)
                case .subtract: i.subtractingReportingOverflow(j)
                default: i.multipliedReportingOverflow(by: j)
                }
                if !overflow { return .integer(result) }
            }
            let (p, q) = (real(x), real(y))
            return finite(op == .add ? p + q : (op == .subtract ? p - q : p * q))
        case .divide:
            // Real division, always; by zero is NULL.
            let q = real(y)
            return q == 0 ? .null : finite(real(x) / q)
        case .power:
            return finite(pow(real(x), real(y)))
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight:
            return bitwise(a, op, b)
        }
    }

    /// `& | ^ << >>` as SQLite's VDBE computes them: NULL if a side is NULL, else on the integer
    /// of each side; a shift by a negative amount shifts the other way, by 64 or more gives 0
    /// (or -1 for a right shift of a negative number).
    static func bitwise(_ a: Value, _ op: ArithmeticOperator, _ b: Value) -> Value {
        if a.isNull || b.isNull { return .null }
        let x = integer(a), y = integer(b)
        switch op {
        case .bitwiseAnd: return .integer(x & y)
        case .bitwiseOr: return .integer(x | y)
        case .bitwiseXor: return .integer(x ^ y)
        default: break
        }
        var left = op == .shiftLeft
        var amount = y
        if amount == 0 { return .integer(x) }
        if amount < 0 {
            left.toggle()
            amount = amount > -64 ? -amount : 64
        }
        if amount >= 64 { return .integer(x >= 0 || left ? 0 : -1) }
        return .integer(left ? x << amount : x >> amount)   // >> of Int64 extends the sign, as SQLite
    }

    /// SQLite's integer of a value (`sqlite3VdbeIntValue`): reals truncated toward zero and
    /// clamped, text and blobs by their leading decimal integer (0 when none, clamped).
    static func integer(_ v: Value) -> Int64 {
        switch v {
        case .null: return 0
        case .integer(let i): return i
        case .real(let r):
            if r <= -9223372036854775808.0 { return Int64.min }
            if r >= 9223372036854775807.0 { return Int64.max }
            return r.isNaN ? 0 : Int64(r.rounded(.towardZero))
        case .decimal: return integer(v.approximated)
        case .text(let s): return leadingInteger(Array(s.utf8))
        case .blob(let bytes): return leadingInteger(bytes)
        }
    }

    /// `sqlite3Atoi64`'s value: spaces, a sign, decimal digits; saturated when too large.
    private static func leadingInteger(_ bytes: [UInt8]) -> Int64 {
        var i = 0
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
        var negative = false
        if i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B { negative = bytes[i] == 0x2D; i += 1 }
        var magnitude: UInt64 = 0
        var overflow = false
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
            if o1 || o2 { overflow = true; break }
            magnitude = sum
            i += 1
        }
        if negative {
            return overflow || magnitude > UInt64(Int64.max) + 1 ? Int64.min : Int64(bitPattern: 0 &- magnitude)
        }
        return overflow || magnitude > UInt64(Int64.max) ? Int64.max : Int64(magnitude)
    }

    static func negate(_ a: Value) -> Value {
        switch number(a) {
        case .integer(let i): return i == Int64.min ? .real(-Double(i)) : .integer(-i)
        case .real(let r): return .real(-r)
        default: return .null
        }
    }

    static func real(_ v: Value) -> Double {
        switch v {
        case .integer(let i): return Double(i)
        case .real(let r): return r
        case .decimal(let d): return d.double
        default: return 0
        }
    }

    /// NaN is NULL in SQLite.
    static func finite(_ r: Double) -> Value { r.isNaN ? .null : .real(r) }
}

/// Dates as `CAST(…, "NSDate")` and `now()` make them: Unix seconds, compared with text as
/// `YYYY-MM-DD HH:MM:SS` (UTC) and with numbers as seconds.
public enum DateSemantics {
    /// Seconds between 1970-01-01 and Apple's reference date 2001-01-01.
    public static let referenceDateOffset = 978_307_200.0

    /// `YYYY-MM-DD`, optionally followed by ` HH:MM`, `:SS`, `.fff` (or `T` as separator), then
    /// `Z` or an offset from UTC after a time: `+05:30`, `-0330`, `+01` (as PostgreSQL writes a
    /// `timestamptz`). Without an offset the time is UTC.
    public static func parse(_ text: String) -> Double? {
        let b = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for k in 0..<count {
                let d = b[i + k]
                guard d >= 0x30, d <= 0x39 else { return nil }
                value = value * 10 + Int(d - 0x30)
            }
            i += count
            return value
        }
        func expect(_ c: UInt8) -> Bool { if i < b.count, b[i] == c { i += 1; return true } else { return false } }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        var hasTime = false
        if i < b.count, b[i] == 0x20 || b[i] == 0x54 {
            hasTime = true
            i += 1
            guard let hour = digits(2), expect(0x3A), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            seconds += Double(hour * 3_600 + minute * 60)
            if expect(0x3A) {
                guard let second = digits(2), second < 60 else { return nil }
                seconds += Double(second)
                if expect(0x2E) {
                    var scale = 0.1
                    var any = false
                    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                        seconds += Double(b[i] - 0x30) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    if !any { return nil }
                }
            }
        }
        if hasTime, i < b.count, b[i] == 0x2B || b[i] == 0x2D {
            let sign = b[i] == 0x2D ? -1.0 : 1.0
            i += 1
            guard let hours = digits(2), hours < 24 else { return nil }
            var minutes = 0
            let colon = expect(0x3A)
            if colon || i < b.count {
                guard let m = digits(2), m < 60 else { return nil }
                minutes = m
            }
            seconds -= sign * Double(hours * 3_600 + minutes * 60)
        } else {
            _ = expect(0x5A) // Z
        }
        return i == b.count ? seconds : nil
    }

    /// `YYYY-MM-DD HH:MM:SS` (with `.SSS` when there is a fraction), UTC; nil outside years 1–9999.
    /// The time is first rounded to the nearest millisecond, half up, as SQLite's date functions
    /// keep it: 0.9996 s is the next second, not this one's `.999` (nor, as before, its `.000`).
    public static func text(_ seconds: Double) -> String? {
        guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        let milliseconds = (seconds * 1_000 + 0.5).rounded(.down)
        let whole = (milliseconds / 1_000).rounded(.down)
        let days = Int((whole / 86_400).rounded(.down))
        let secondOfDay = Int(whole - Double(days) * 86_400)
        let (y, m, d) = civilFromDays(days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = y < 1_000 ? String(repeating: "0", count: y < 10 ? 3 : y < 100 ? 2 : 1) + "\(y)" : "\(y)"
        var s = "\(year)-\(two(m))-\(two(d)) \(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        let millis = Int(milliseconds - whole * 1_000)
        if millis > 0 { s += String(format: ".%03d", millis) }
        return s
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
