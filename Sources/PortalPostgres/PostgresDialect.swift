import PortalEngine
import PortalPredicate

/// PostgreSQL's spelling (verified against PostgreSQL 15): `$1` parameters, `TRUE`/`FALSE`,
/// `IS [NOT] DISTINCT FROM`, `IS NOT TRUE`, `LIMIT ALL`, `COLLATE "C"` for byte order.
///
/// Where PostgreSQL's built-ins differ from SQLite's, the spellings below make them give the
/// same rows (PostgresRandomDifferentialTests checks that on generated data); what still
/// differs — typed comparisons, `[c]`'s special foldings, `[l]` and canonical equivalence,
/// MATCHES' regular expression flavour, NUL in text — is in docs/predicates.md, "On PostgreSQL".
/// There is no row id.
public struct PostgresDialect: SQLDialect {
    /// The dialect (it has no settings).
    public init() {}

    /// `LIMIT n` (`LIMIT ALL` when only an offset is given) and `OFFSET ?`. The limit is written
    /// in, not bound: with `LIMIT $n` PostgreSQL cannot cost a generic plan, so it plans a
    /// prepared statement afresh at every run (a browser page's statement spent half its server
    /// time planning); with the number in, it keeps one plan after five runs, as for any query.
    public func limit(_ limit: Int?, offset: Int?) -> SQLFragment {
        guard limit != nil || offset != nil else { return SQLFragment("") }
        let fragment = SQLFragment(limit.map { " LIMIT \(max($0, 0))" } ?? " LIMIT ALL")
        guard let offset else { return fragment }
        return fragment + " OFFSET " + .bound(.integer(Int64(offset)))
    }

    /// `$1, $2, …`, whatever the values (callers keep rendered statements and bind new values);
    /// the connection gives a parameter a type where PostgreSQL could not infer the right one
    /// (`PostgresConnection.parameterTypes`).
    public func parameter(_ number: Int) -> String? { "$\(number)" }

    public func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    public func isNotTrue(_ condition: SQLFragment) -> SQLFragment { condition.parenthesized + " IS NOT TRUE" }

    public func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment, negated: Bool) -> SQLFragment {
        left + (negated ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ") + right
    }

    /// For `[c]`, `lower(…)` after `ß` and `ẞ` become `ss` (Unicode's full case folding, which
    /// SQLite's fold applies; `lower` alone keeps `ß`); for `[d]`, NFD then the combining marks
    /// (U+0300–U+036F) removed. `lower` folds by the database's locale: under `C` it folds ASCII
    /// only. (A `COLLATE` here would also decide how the folded texts compare.)
    public func folded(_ value: SQLFragment, _ flags: Int) -> SQLFragment {
        var result = value
        if flags & 2 != 0 { result = "regexp_replace(normalize((" + result + ")::text, NFD), '[\u{0300}-\u{036F}]', '', 'g')" }
        if flags & 1 != 0 { result = "lower(replace(replace((" + result + ")::text, 'ß', 'ss'), 'ẞ', 'ss'))" }
        return result
    }

    /// The ICU root collation.
    public func localeOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE \"und-x-icu\"" }

    public func byteOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE \"C\"" }

    /// `strpos`, `starts_with`, `right`, `LIKE` with NSPredicate's `*`/`?` turned into `%`/`_`
    /// (and `\ % _` escaped), and `~` anchored for MATCHES; both sides folded first.
    public func textTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment, flags: Int) -> SQLFragment {
        if test == .matches {
            // `[c]` is `~*`, not a folded pattern: lowercasing `\D` would make it `\d`. Like
            // ICU's case-insensitive matching, it keeps `ß` apart from `ss`. Anchored to match
            // the whole text; leading `(?i)`-style flags stay in front, where PostgreSQL takes them.
            let t = folded("(" + text + ")::text", flags & 2), p = folded("(" + pattern + ")::text", flags & 2)
            return t + (flags & 1 != 0 ? " ~* " : " ~ ") + "regexp_replace(" + p + ", '^(\\(\\?[a-zA-Z]+\\))?(.*)$', '\\1^(?:\\2)$')"
        }
        let t = folded("(" + text + ")::text", flags), p = folded("(" + pattern + ")::text", flags)
        // An empty text is in no text, as in the language (PostgreSQL's functions would say yes).
        let nonEmpty = p + " <> '' AND "
        switch test {
        case .contains: return "(" + nonEmpty + "strpos(" + t + ", " + p + ") > 0)"
        case .beginsWith: return "(" + nonEmpty + "starts_with(" + t + ", " + p + "))"
        case .endsWith: return "(" + nonEmpty + "right(" + t + ", length(" + p + ")) = " + p + ")"
        default:
            let escaped: SQLFragment = "replace(replace(replace(replace(replace(" + p
                + ", '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%'), '?', '_')"
            return t + " LIKE " + escaped
        }
    }

    public func plainTextTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment,
                              byteCount: Int) -> SQLFragment? { nil }

    public func isNumber(_ value: SQLFragment) -> SQLFragment {
        "pg_typeof(" + value + ") IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, "
            + "'real'::regtype, 'double precision'::regtype, 'numeric'::regtype)"
    }

    /// Columns have types, not affinities: the value as it is.
    public func withoutAffinity(_ value: SQLFragment) -> SQLFragment { value }

    /// As float8 through text: the CASE must have one type whatever the column's (a boolean,
    /// uuid or timestamp has no cast to float8, though the branch never runs for one).
    public func numberOrNull(_ value: SQLFragment) -> SQLFragment {
        "CASE WHEN " + isNumber(value) + " THEN (" + value + ")::text::float8 END"
    }

    /// A boolean as 1 or 0 (as `PostgresStatement` reads it) and a UUID as text: PostgreSQL has
    /// no `min` or `max` of either.
    public func comparable(_ column: String, declaredType: String) -> String {
        switch declaredType.lowercased() {
        case "boolean": return "(\(column))::int"
        case "uuid": return "(\(column))::text"
        default: return column
        }
    }

    /// `least(a, b)`.
    public func least(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { "least(" + a + ", " + b + ")" }

    /// `trunc`: a cast to bigint would round.
    public func integerPart(_ value: SQLFragment) -> SQLFragment { "trunc((" + value + ")::numeric)::int8" }

    /// `char_length` of the value as text (a number has no length of its own there).
    public func textLength(_ value: SQLFragment) -> SQLFragment { "char_length((" + value + ")::text)" }

    /// PostgreSQL puts NULL last in ascending order unless told otherwise; told only where the
    /// value may be NULL, since `NULLS FIRST` keeps it from reading a plain index in order.
    public func direction(ascending: Bool, nullable: Bool) -> String {
        guard nullable else { return ascending ? " ASC" : " DESC" }
        return ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"
    }

    /// NULLIF makes a division by zero NULL, as in SQLite (PostgreSQL would fail the query).
    public func realDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        "((" + left + ")::float8 / NULLIF(" + right + ", 0))"
    }

    /// On the operands truncated to bigint; `^` is `#`; shifts as SQLite's (see the protocol).
    public func bitwise(_ left: SQLFragment, _ op: ArithmeticOperator, _ right: SQLFragment) -> SQLFragment {
        let l = "trunc((" + left + ")::numeric)::int8", r = "trunc((" + right + ")::numeric)::int8"
        switch op {
        case .bitwiseAnd: return "(" + l + " & " + r + ")"
        case .bitwiseOr: return "(" + l + " | " + r + ")"
        case .bitwiseXor: return "(" + l + " # " + r + ")"
        default:
            let (forward, backward) = op == .shiftLeft ? ("<<", ">>") : (">>", "<<")
            // Past 63 bits every bit is gone: 0, or -1 for a right shift of a negative number.
            let gone: SQLFragment = "(CASE WHEN " + l + " < 0 AND " + (op == .shiftLeft ? r + " < 0" : r + " > 0")
                + " THEN -1 WHEN " + l + " IS NOT NULL THEN 0 END)"
            return "(CASE WHEN abs(" + r + ") >= 64 THEN " + gone + " WHEN " + r + " >= 0 THEN " + l + " \(forward) ("
                + r + ")::int4 ELSE " + l + " \(backward) (-" + r + ")::int4 END)"
        }
    }

    /// As text, or as SQLite's CAST to NUMERIC: the longest number at the start of the text,
    /// else 0 (PostgreSQL's `::numeric` would fail the query on text that is no number).
    public func cast(_ value: SQLFragment, toText: Bool) -> SQLFragment {
        if toText { return "(" + value + ")::text" }
        let text = "(" + value + ")::text"
        return "(CASE WHEN " + text + " IS NULL THEN NULL ELSE COALESCE(substring(" + text
            + " from '^\\s*([-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?)')::numeric, 0) END)"
    }

    public func function(_ name: String) -> String? { Self.functions[name] }

    /// By the column's type: a `timestamp`, `timestamptz` or `date` column against the date as
    /// that type (a `date` as midnight of its day), so that the column's index serves; a number
    /// column against Unix seconds; a text column against the engine's date text (as on SQLite).
    /// A `timestamptz` gets the date in UTC, `+00`, whatever the session's time zone.
    public func date(_ seconds: Double, comparedWithColumnOf declaredType: String) -> SQLFragment? {
        let type = declaredType.lowercased()
        let text: Value = DateSemantics.text(seconds).map(Value.text) ?? .null
        if type.hasPrefix("timestamp"), type.hasSuffix("with time zone") {
            return .bound(DateSemantics.text(seconds).map { Value.text($0 + "+00") } ?? .null) + "::timestamptz"
        }
        if type.hasPrefix("timestamp") { return .bound(text) + "::timestamp" }
        if type == "date" { return .bound(text) + "::timestamp" }
        if Self.numberTypes.contains(where: type.hasPrefix) {
            return .bound(seconds == seconds.rounded() && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .real(seconds))
        }
        if Self.textTypes.contains(where: type.hasPrefix) { return .bound(text) }
        return nil
    }

    /// Yes: the session's time zone is the user's (as psql's), not UTC.
    public var readsOffsetlessDatesInSessionZone: Bool { true }

    private static let numberTypes = ["smallint", "integer", "bigint", "numeric", "real", "double precision"]
    private static let textTypes = ["text", "character", "citext"]

    /// An integer as `bigint`: `1000 * 60` alone has no side to take a type from (a real is
    /// sent as `float8` already, `PostgresConnection.parameterTypes`).
    public func arithmeticOperand(_ literal: SQLFragment, _ value: Value) -> SQLFragment {
        if case .integer = value { return literal + "::int8" }
        return literal
    }

    /// From `longList` values on, `value = ANY($1)` with the values in one array parameter: a
    /// statement with thousands of parameters is more than libpq takes (it reads the description
    /// of 7,500 as a broken connection). Numbers and texts are not mixed in one array (their
    /// types would clash): such a list stays `IN (…)`.
    public func membership(_ value: SQLFragment, inLiterals literals: [Value]) -> SQLFragment? {
        guard literals.count >= Self.longList else { return nil }
        var elements: [String] = []
        elements.reserveCapacity(literals.count)
        var texts = 0, reals = 0, numerics = 0
        for literal in literals {
            switch literal {
            case .integer(let n): elements.append(String(n))
            case .real(let r):
                reals += 1
                if PostgresConnection.numericHolds(r) { numerics += 1 }
                elements.append(PostgresConnection.realText(r))
            case .decimal(let d):
                reals += 1
                numerics += 1
                elements.append(d.text)
            case .text(let t):
                texts += 1
                elements.append("\"" + t.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"")
            case .null, .blob: return nil
            }
        }
        guard texts == 0 || texts == literals.count else { return nil }
        let array = SQLFragment.bound(.text("{" + elements.joined(separator: ",") + "}"))
        // Numbers with a fraction in numeric[], as one is sent alone (`PostgresConnection.parameterTypes`),
        // unless one is what numeric has no value for (NaN, an infinity, -0): then float8[].
        guard reals > 0 else { return value + " = ANY(" + array + ")" }
        return value + " = ANY(" + array + (numerics == reals ? "::numeric[])" : "::float8[])")
    }

    /// The length of a list of values from which `membership` binds one array.
    static let longList = 100

    private static let functions = [
        "lowercase": "lower", "uppercase": "upper", "length": "char_length", "abs": "abs", "sqrt": "sqrt",
        "floor": "floor", "ceiling": "ceil", "trunc": "trunc", "ln": "ln", "log": "log", "exp": "exp", "pow": "power",
    ]

    public func dateText(unixSeconds column: String) -> String {
        "to_char(to_timestamp(\(column)) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
    }

    /// Days since the Julian epoch (noon, 4714 BC), as SQLite's `julianday`; numbers are Unix
    /// seconds, a `timestamptz` is its instant, a `date` or `timestamp` is read as UTC (as the
    /// engine's date text is), whatever the session's time zone. Text is a date when it has the
    /// engine's date form (`yyyy-MM-dd[ HH:mm[:ss[.SSS]]]`, `T` allowed, a final `Z`); other text
    /// is NULL, as `julianday` gives (a cast would fail the query). Offsets such as `+02:00` in
    /// text are not read: such text is NULL here.
    public func dayNumber(_ column: String) -> String {
        let text = "(\(column))::text"
        let local = "pg_typeof(\(column)) IN ('date'::regtype, 'timestamp'::regtype)"
        return "(CASE WHEN " + isNumber(SQLFragment(column)).sql + " THEN \(text)::float8 / 86400.0 + 2440587.5 "
            + "WHEN pg_typeof(\(column)) = 'timestamptz'::regtype THEN extract(epoch from \(text)::timestamptz) / 86400.0 + 2440587.5 "
            + "WHEN \(local) THEN extract(epoch from \(text)::timestamp) / 86400.0 + 2440587.5 "
            + "WHEN \(text) ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?)?Z?$' "
            + "THEN extract(epoch from rtrim(\(text), 'Z')::timestamp) / 86400.0 + 2440587.5 END)"
    }

    public func uuidText(_ column: String) -> String {
        "(CASE WHEN octet_length(\(column)) = 16 THEN upper(encode(\(column), 'hex')::uuid::text) END)"
    }

    // MARK: Collections and JSON inside a column

    /// An array column (`text[]`) by `unnest`, whose one column takes the item's name; a `json`
    /// or `jsonb` array by its elements as text.
    public func collectionElements(_ column: String, declaredType: String) -> (from: String, valueColumn: String?)? {
        if declaredType.hasSuffix("[]") { return ("unnest(\(column))", nil) }
        guard declaresJSON(declaredType) else { return nil }
        return ("jsonb_array_elements_text(CASE WHEN jsonb_typeof(\(column)::jsonb) = 'array' THEN \(column)::jsonb END)", "value")
    }

    /// The `jsonb` at the keys, as a number where a number is compared (NULL where it holds
    /// another kind of value, as SQLite's text never equals a number), else as text (a JSON
    /// null is NULL there).
    public func jsonValue(_ column: String, declaredType: String, keys: [String], comparedWith literal: Value?) -> SQLFragment? {
        guard declaresJSON(declaredType) else { return nil }
        let value = "jsonb_extract_path(\(column)::jsonb, " + keys.map(stringLiteral).joined(separator: ", ") + ")"
        switch literal {
        case .integer?, .real?:
            return SQLFragment("(CASE WHEN jsonb_typeof(\(value)) = 'number' THEN (\(value) #>> '{}')::numeric END)")
        case .text?:
            return SQLFragment("(CASE WHEN jsonb_typeof(\(value)) = 'string' THEN \(value) #>> '{}' END)")
        default:
            return SQLFragment("(\(value) #>> '{}')")
        }
    }
}
