import PortalEngine
import PortalPredicate

// SQLite's spelling of compiled predicates. The `portal_*` functions and the `portal_locale`
// collation are registered on every connection (SQLite/SQLFunctions.swift): SQLite's own
// lower/upper/LIKE fold ASCII only, and it has no regular expressions.

extension SQLiteDialect {
    /// `1` / `0`.
    public func boolean(_ value: Bool) -> String { value ? "1" : "0" }

    /// `(condition) IS NOT 1`.
    public func isNotTrue(_ condition: SQLFragment) -> SQLFragment { condition.parenthesized + " IS NOT 1" }

    /// `left IS right` / `left IS NOT right`.
    public func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment, negated: Bool) -> SQLFragment {
        left + (negated ? " IS NOT " : " IS ") + right
    }

    /// `portal_fold(value, flags)`.
    public func folded(_ value: SQLFragment, _ flags: Int) -> SQLFragment {
        flags == 0 ? value : "portal_fold(" + value + ", \(flags))"
    }

    /// `+(value) = text COLLATE portal_fold<flags>`: SQLite compares the two texts through the
    /// collation, which folds each row's text into scratch memory and keeps the literal's fold
    /// (no function call and no folded text per row). The `+` drops the column's affinity, as
    /// `portal_fold(value)` does: a number stays a number, never equal to text.
    public func foldedEqual(_ value: SQLFragment, _ text: SQLFragment, flags: Int) -> SQLFragment {
        flags == 0 ? value + " = " + text : "+(" + value + ") = " + text + " COLLATE portal_fold\(flags)"
    }

    /// `value COLLATE portal_locale`: SQLite uses the explicit collation of the left side for
    /// `=`, `<`, `BETWEEN` and `IN`, so the compiler puts it there.
    public func localeOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE portal_locale" }

    /// `value COLLATE BINARY`.
    public func byteOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE BINARY" }

    /// `portal_contains(text, pattern, flags)` and its siblings.
    public func textTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment,
                         flags: Int) -> SQLFragment {
        let function = switch test {
        case .contains: "portal_contains"
        case .beginsWith: "portal_beginswith"
        case .endsWith: "portal_endswith"
        case .like: "portal_like"
        default: "portal_matches"
        }
        return .raw(function + "(") + text + ", " + pattern + ", \(flags))"
    }

    /// `instr(text, pattern) > 0`; ENDSWITH compares bytes, as `substr()` of text with a negative
    /// start stops counting at a NUL character while `substr()` of a blob does not.
    public func plainTextTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment,
                              byteCount: Int) -> SQLFragment? {
        switch test {
        case .contains: return "instr(" + text + ", " + pattern + ") > 0"
        case .endsWith:
            return "substr(CAST(" + text + " AS BLOB), -" + .bound(.integer(Int64(byteCount))) + ") = CAST("
                + pattern + " AS BLOB)"
        default: return nil
        }
    }

    /// `typeof(value) IN ('integer','real')`.
    public func isNumber(_ value: SQLFragment) -> SQLFragment { "typeof(" + value + ") IN ('integer','real')" }

    /// The unary `+`, which drops a column's affinity in SQLite.
    public func withoutAffinity(_ value: SQLFragment) -> SQLFragment { "+" + value }

    /// `(CAST(left AS REAL) / right)`.
    public func realDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        "(CAST(" + left + " AS REAL) / " + right + ")"
    }

    /// `CASE WHEN typeof(value) IN ('integer','real') THEN value END`.
    public func numberOrNull(_ value: SQLFragment) -> SQLFragment { "CASE WHEN " + isNumber(value) + " THEN " + value + " END" }

    /// The column itself: every SQLite value has `min` and `max`.
    public func comparable(_ column: String, declaredType: String) -> String { column }

    /// SQLite's `min` of two arguments.
    public func least(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { "min(" + a + ", " + b + ")" }

    /// `CAST(value AS INTEGER)`, which truncates.
    public func integerPart(_ value: SQLFragment) -> SQLFragment { "CAST(" + value + " AS INTEGER)" }

    /// `length(value)`: characters of text (bytes of a blob).
    public func textLength(_ value: SQLFragment) -> SQLFragment { "length(" + value + ")" }

    /// SQLite puts NULL first in ascending order by itself.
    public func direction(ascending: Bool, nullable: Bool) -> String { ascending ? " ASC" : " DESC" }

    /// SQLite's own operators; it has no XOR: a ^ b is (a | b) - (a & b), exactly (the bits do
    /// not overlap).
    public func bitwise(_ left: SQLFragment, _ op: ArithmeticOperator, _ right: SQLFragment) -> SQLFragment {
        guard op == .bitwiseXor else { return "(" + left + " \(op.rawValue) " + right + ")" }
        return "((" + left + " | " + right + ") - (" + left + " & " + right + "))"
    }

    /// `+CAST(value AS TEXT)` or `AS NUMERIC`: the unary `+` drops the affinity SQLite gives a
    /// CAST, so the result compares as a plain value.
    public func cast(_ value: SQLFragment, toText: Bool) -> SQLFragment {
        withoutAffinity("CAST(" + value + (toText ? " AS TEXT)" : " AS NUMERIC)"))
    }

    /// SQLite's built-in math functions; lowercase/uppercase/length are registered (SQLite's
    /// lower/upper fold ASCII only, its length stops at the first NUL character).
    public func function(_ name: String) -> String? { Self.functions[name] }

    /// `datetime(…, 'unixepoch')`, with milliseconds when there are any.
    public func dateText(unixSeconds column: String) -> String {
        "(CASE WHEN \(column) = CAST(\(column) AS INTEGER) THEN datetime(\(column), 'unixepoch') "
            + "ELSE strftime('%Y-%m-%d %H:%M:%f', \(column), 'unixepoch') END)"
    }

    /// `julianday`, numbers read as Unix seconds (the engine's convention for dates).
    public func dayNumber(_ column: String) -> String {
        "(CASE WHEN typeof(\(column)) IN ('integer','real') THEN julianday(\(column), 'unixepoch') ELSE julianday(\(column)) END)"
    }

    /// The blob's hex digits (upper case, as `UUID.uuidString`) in the 8-4-4-4-12 groups.
    public func uuidText(_ column: String) -> String {
        let groups = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(hex(\(column)), \($0.0), \($0.1))" }
        let text = groups.joined(separator: " || '-' || ")
        return "(CASE WHEN typeof(\(column)) = 'blob' AND length(\(column)) = 16 THEN \(text) ELSE \(column) END)"
    }

    private static let functions = [
        "lowercase": "portal_lower", "uppercase": "portal_upper", "length": "portal_length", "abs": "abs",
        "sqrt": "sqrt", "floor": "floor", "ceiling": "ceil", "trunc": "trunc", "ln": "ln", "log": "log10",
        "exp": "exp", "pow": "pow",
    ]

    /// A JSON column's array (`JSON` declared): `json_each` of a valid document that is an array.
    public func collectionElements(_ column: String, declaredType: String) -> (from: String, valueColumn: String?)? {
        guard declaresJSON(declaredType) else { return nil }
        return ("json_each(CASE WHEN NOT json_valid(\(column)) THEN NULL WHEN json_type(\(column)) = 'array' THEN \(column) END)",
                "value")
    }

    /// `json_extract` gives a JSON number as a number and a string as text; compared with a
    /// literal, only a value of its kind (SQLite would order a text after every number, where a
    /// server has no order between them). A document that is no valid JSON has no keys.
    public func jsonValue(_ column: String, declaredType: String, keys: [String], comparedWith literal: Value?) -> SQLFragment? {
        guard declaresJSON(declaredType) else { return nil }
        let path = stringLiteral("$" + keys.map { ".\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined())
        let document = "CASE WHEN json_valid(\(column)) THEN \(column) END"
        let value = "json_extract(\(document), \(path))"
        switch literal {
        case .integer?, .real?: return SQLFragment("(CASE WHEN json_type(\(document), \(path)) IN ('integer', 'real') THEN \(value) END)")
        case .text?: return SQLFragment("(CASE WHEN json_type(\(document), \(path)) = 'text' THEN \(value) END)")
        default: return SQLFragment(value)
        }
    }
}
