import PortalEngine
import PortalPredicate

/// PostgreSQL's spelling (verified against PostgreSQL 15): `$1` parameters, `TRUE`/`FALSE`,
/// `IS [NOT] DISTINCT FROM`, `IS NOT TRUE`, `LIMIT ALL`, `COLLATE "C"` for byte order.
///
/// Where PostgreSQL's built-ins differ from the language (docs/predicates.md), the differences
/// are these: `[c]` folds with `lower()` (the database's locale, not Unicode case folding: `ß`
/// stays `ß`); `[d]` strips combining marks after NFD normalisation; `MATCHES` is PostgreSQL's
/// regular expression flavour (`~`), anchored, not ICU's; there is no row id.
public struct PostgresDialect: SQLDialect {
    /// The dialect (it has no settings).
    public init() {}

    /// In double quotes, inner quotes doubled (the standard, as SQLite).
    public func quoted(_ name: String) -> String { SQLiteDialect().quoted(name) }

    /// None: rows are identified by their key.
    public var rowidColumn: String? { nil }

    /// `LIMIT ?` (`LIMIT ALL` when only an offset is given) and `OFFSET ?`.
    public func limit(_ limit: Int?, offset: Int?) -> SQLFragment {
        guard limit != nil || offset != nil else { return SQLFragment("") }
        var fragment = limit.map { SQLFragment(" LIMIT ?", [.integer(Int64(max($0, 0)))]) } ?? SQLFragment(" LIMIT ALL")
        if let offset {
            fragment.sql += " OFFSET ?"
            fragment.bindings.append(.integer(Int64(offset)))
        }
        return fragment
    }

    /// ` ON CONFLICT (key) DO UPDATE SET c = excluded.c, …` (as SQLite).
    public func onConflict(key: [String], update columns: [String]) -> String {
        SQLiteDialect().onConflict(key: key, update: columns)
    }

    public var returningAll: String { " RETURNING *" }

    /// `$1, $2, …`.
    public func parameters(in statement: SQLFragment) -> SQLFragment { statement.numberingParameters { "$\($0)" } }

    public func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    public func isNotTrue(_ condition: SQLFragment) -> SQLFragment { condition.parenthesized + " IS NOT TRUE" }

    public func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment, negated: Bool) -> SQLFragment {
        left + (negated ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ") + right
    }

    /// `lower(…)` for `[c]`; for `[d]`, NFD then the combining marks (U+0300–U+036F) removed.
    public func folded(_ value: SQLFragment, _ flags: Int) -> SQLFragment {
        var result = value
        if flags & 2 != 0 { result = "regexp_replace(normalize((" + result + ")::text, NFD), '[\u{0300}-\u{036F}]', '', 'g')" }
        if flags & 1 != 0 { result = "lower((" + result + ")::text)" }
        return result
    }

    /// The ICU root collation.
    public func localeOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE \"und-x-icu\"" }

    public func byteOrdered(_ value: SQLFragment) -> SQLFragment { value + " COLLATE \"C\"" }

    /// `strpos`, `starts_with`, `right`, `LIKE` with NSPredicate's `*`/`?` turned into `%`/`_`
    /// (and `\ % _` escaped), and `~` anchored for MATCHES; both sides folded first.
    public func textTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment, flags: Int) -> SQLFragment {
        let t = folded("(" + text + ")::text", flags), p = folded("(" + pattern + ")::text", flags)
        switch test {
        case .contains: return "strpos(" + t + ", " + p + ") > 0"
        case .beginsWith: return "starts_with(" + t + ", " + p + ")"
        case .endsWith: return "right(" + t + ", length(" + p + ")) = " + p
        case .like:
            let escaped: SQLFragment = "replace(replace(replace(replace(replace(" + p
                + ", '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%'), '?', '_')"
            return t + " LIKE " + escaped
        default: return t + " ~ ('^(?:' || " + p + " || ')$')"
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

    public func realDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment {
        "((" + left + ")::float8 / " + right + ")"
    }

    public func cast(_ value: SQLFragment, toText: Bool) -> SQLFragment {
        "(" + value + (toText ? ")::text" : ")::numeric")
    }

    public func function(_ name: String) -> String? { Self.functions[name] }

    private static let functions = [
        "lowercase": "lower", "uppercase": "upper", "length": "char_length", "abs": "abs", "sqrt": "sqrt",
        "floor": "floor", "ceiling": "ceil", "trunc": "trunc", "ln": "ln", "log": "log", "exp": "exp", "pow": "power",
    ]

    public func dateText(unixSeconds column: String) -> String {
        "to_char(to_timestamp(\(column)) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
    }

    /// Days since the Julian epoch (noon, 4714 BC), as SQLite's `julianday`; numbers are Unix seconds.
    public func dayNumber(_ column: String) -> String {
        "(CASE WHEN " + isNumber(SQLFragment(column)).sql + " THEN (\(column))::float8 / 86400.0 + 2440587.5 "
            + "ELSE extract(epoch from (\(column))::text::timestamp) / 86400.0 + 2440587.5 END)"
    }

    public func uuidText(_ column: String) -> String {
        "(CASE WHEN octet_length(\(column)) = 16 THEN upper(encode(\(column), 'hex')::uuid::text) END)"
    }
}
