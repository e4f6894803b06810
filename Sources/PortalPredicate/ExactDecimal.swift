/// A decimal number exactly as written: every digit and its scale (`4.10` keeps its zero), as
/// PostgreSQL's `numeric` holds it. SQLite has no such type: there it is the nearest double
/// (`double`), as SQLite reads the same literal.
public struct ExactDecimal: Sendable, Hashable, CustomStringConvertible {
    /// The canonical text: an optional minus, the integer digits without leading zeros (one
    /// zero when there are none), then a point and the fraction's digits when there is a
    /// fraction. Zero has no sign (`numeric` has no negative zero).
    public let text: String

    /// The decimal `text` writes: an optional sign, digits, and an optional point followed by
    /// digits (`-12.50`, `+3`, `007.0`); nil for anything else (an exponent, `NaN`, spaces).
    public init?<S: StringProtocol>(_ text: S) {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let point = bytes.firstIndex(of: UInt8(ascii: "."))
        let whole = bytes[..<(point ?? bytes.endIndex)]
        let fraction = point.map { bytes[bytes.index(after: $0)...] }
        guard !whole.isEmpty, whole.allSatisfy(Self.isDigit), fraction.map({ !$0.isEmpty && $0.allSatisfy(Self.isDigit) }) ?? true
        else { return nil }
        let digits = whole.drop { $0 == UInt8(ascii: "0") }
        var canonical = digits.isEmpty ? "0" : String(decoding: digits, as: UTF8.self)
        if let fraction { canonical += "." + String(decoding: fraction, as: UTF8.self) }
        let isZero = digits.isEmpty && (fraction?.allSatisfy { $0 == UInt8(ascii: "0") } ?? true)
        self.text = negative && !isZero ? "-" + canonical : canonical
    }

    /// The nearest double (infinite past the double's range), as SQLite reads the literal.
    public var double: Double { Double(text) ?? .nan }

    /// The same digits with the other sign.
    public var negated: ExactDecimal {
        let flipped = text.hasPrefix("-") ? String(text.dropFirst()) : "-" + text
        return ExactDecimal(flipped) ?? self
    }

    /// Whether the nearest double prints back as exactly this text (`0.1`, `2.5`): such a
    /// literal loses nothing as a double, and the language keeps it one.
    public var isPlainDouble: Bool { double.description == text }

    /// The decimal a number literal without exponent stands for, when no double writes it back
    /// (`4.10`, `12345678901234567890.5`, an integer past 64 bits); nil for a literal that is a
    /// 64-bit integer or a plain double, and for anything else. The predicate language, `let`
    /// and the browser's cells read numbers by this one rule.
    public static func literal<S: StringProtocol>(_ text: S) -> ExactDecimal? {
        guard Int64(text) == nil, let decimal = ExactDecimal(text), !decimal.isPlainDouble else { return nil }
        return decimal
    }

    /// Whether the nearest double is this number, whatever its scale (`4.10` is 4.1, as a
    /// double holds it; `12345678901234567890.5` is not): where SQLite stores the double,
    /// nothing but trailing zeros is lost.
    public var isDoubleExactly: Bool {
        let number = double
        return number.isFinite && Self.significand(of: text) == Self.significand(of: number.description)
    }

    public var description: String { text }

    /// The sign, the significant digits (no leading or trailing zeros) and the power of ten of
    /// the first one, of a decimal in plain or exponent notation (`-1.5e-07`).
    private static func significand(of text: String) -> (Bool, [UInt8], Int) {
        var mantissa = Array(text.utf8)
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponent = Int(String(decoding: mantissa[(e + 1)...], as: UTF8.self)) ?? 0
            mantissa = Array(mantissa[..<e])
        }
        let negative = mantissa.first == UInt8(ascii: "-")
        if negative { mantissa.removeFirst() }
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.count
        var digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        var power = exponent + point - 1
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            power -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        return digits.isEmpty ? (false, [], 0) : (negative, digits, power)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
