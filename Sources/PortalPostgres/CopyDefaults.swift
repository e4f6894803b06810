import Foundation

/// A column's default from one database's SQL into the other's, for `--copy-to`: constants
/// (numbers, strings, blobs, booleans, NULL) and the current time, which both databases spell;
/// nil for anything else (an expression, a function of one database), which the copy then
/// names in a note.
enum CopyDefaults {
    /// An SQLite default (as `PRAGMA table_info` gives it) in PostgreSQL's SQL, for a column of
    /// `type` (PostgreSQL's).
    static func postgres(fromSQLite text: String, type: String) -> String? {
        let value = unparenthesized(text)
        let upper = value.uppercased()
        if isNumber(value) { return type == "boolean" ? (value == "0" ? "false" : value == "1" ? "true" : nil) : value }
        if isStringLiteral(value) { return value }
        if upper == "NULL" { return "NULL" }
        if upper == "TRUE" || upper == "FALSE" { return type == "boolean" ? upper.lowercased() : (upper == "TRUE" ? "1" : "0") }
        if upper.hasPrefix("X'"), isStringLiteral(String(value.dropFirst())) {
            return type == "bytea" ? "'\\x" + value.dropFirst(2).dropLast() + "'::bytea" : nil
        }
        // SQLite's current time is UTC text in its own format; a text column keeps that format.
        if let format = nowFormats[upper] {
            return type == "text" ? "to_char(now() AT TIME ZONE 'UTC', '\(format)')" : upper
        }
        return nil
    }

    /// A PostgreSQL default (as `pg_get_expr` prints it) in SQLite's SQL: a constant with its
    /// cast dropped (`'G'::mpaa_rating`, `'-1'::integer` as -1, `'\x01'::bytea` as X'01'), the
    /// current time (also as `postgres(fromSQLite:)` writes SQLite's); nil for a sequence's
    /// `nextval` and anything else.
    static func sqlite(fromPostgres text: String) -> String? {
        var value = unparenthesized(text)
        if let now = nowFormats.first(where: { value == "to_char((now() AT TIME ZONE 'UTC'::text), '\($0.value)'::text)" }) {
            return now.key
        }
        // `'…'::type` or `(-1)::integer`: the constant before the last cast.
        var cast = ""
        if let range = value.range(of: "::", options: .backwards), !value[range.upperBound...].contains("'") {
            cast = String(value[range.upperBound...])
            value = unparenthesized(String(value[..<range.lowerBound]))
        }
        if isStringLiteral(value) {
            let inner = String(value.dropFirst().dropLast())
            if numericTypes.contains(cast), isNumber(inner) { return inner }
            if cast == "bytea", inner.hasPrefix("\\x") { return "X'" + inner.dropFirst(2) + "'" }
            return value
        }
        let lower = value.lowercased()
        if isNumber(value) { return value }
        if lower == "true" || lower == "false" { return lower == "true" ? "1" : "0" }
        if lower == "null" { return "NULL" }
        switch lower {
        case "now()", "current_timestamp", "localtimestamp", "statement_timestamp()", "transaction_timestamp()": return "CURRENT_TIMESTAMP"
        case "current_date": return "CURRENT_DATE"
        case "current_time", "localtime": return "CURRENT_TIME"
        default: return nil
        }
    }

    /// SQLite's current time as text, in PostgreSQL's `to_char` formats.
    private static let nowFormats = ["CURRENT_TIMESTAMP": "YYYY-MM-DD HH24:MI:SS", "CURRENT_DATE": "YYYY-MM-DD", "CURRENT_TIME": "HH24:MI:SS"]

    private static let numericTypes: Set<String> = ["integer", "bigint", "smallint", "numeric", "real", "double precision"]

    private static func unparenthesized(_ text: String) -> String {
        var value = text.trimmingCharacters(in: .whitespaces)
        while value.hasPrefix("("), value.hasSuffix(")"), balanced(value.dropFirst().dropLast()) {
            value = value.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
        }
        return value
    }

    /// True when the parentheses of `text` close in order (`(1) + (2)` is not one group).
    private static func balanced(_ text: Substring) -> Bool {
        var depth = 0
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { return false } }
        }
        return depth == 0
    }

    private static func isNumber(_ text: String) -> Bool {
        text.range(of: #"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil
    }

    /// One literal `'…'`, its quotes inside doubled.
    private static func isStringLiteral(_ text: String) -> Bool {
        text.range(of: #"^'([^']|'')*'$"#, options: .regularExpression) != nil
    }
}
