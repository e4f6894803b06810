import PortalEngine
import PortalPredicate

/// What SQLite's parser alone knows of SQL text, asked of the library itself (PortalSQLite's
/// `SQLiteParser`): a `SQLiteDialect` without one spells SQL the same and leaves these to the database.
public protocol SQLParserLimits: Sendable {
    /// The most values one statement may bind.
    var maximumBindings: Int? { get }
    /// Why the parser refuses `sql` for its nesting, nil when it takes it.
    func nestingProblem(in sql: String) -> String?
}

/// SQLite's spelling.
public struct SQLiteDialect: SQLDialect {
    /// SQLite's own parser, asked for its limits (a store's dialect has it).
    public let parser: (any SQLParserLimits)?

    /// The dialect; with `parser`, it knows the limits of that build of SQLite.
    public init(parser: (any SQLParserLimits)? = nil) { self.parser = parser }

    /// `rowid`.
    public var rowidColumn: String? { "rowid" }

    /// `LIMIT ?` (−1 for none when only an offset is given: SQLite has no OFFSET alone) and
    /// `OFFSET ?`.
    public func limit(_ limit: Int?, offset: Int?) -> SQLFragment {
        guard limit != nil || offset != nil else { return SQLFragment("") }
        var fragment = " LIMIT " + SQLFragment.bound(.integer(Int64(max(limit ?? -1, -1))))
        if let offset { fragment = fragment + " OFFSET " + .bound(.integer(Int64(offset))) }
        return fragment
    }

    public var queryPlanPrefix: String { "EXPLAIN QUERY PLAN " }

    /// SQLite's `SQLITE_LIMIT_VARIABLE_NUMBER` as the parser's build of it has it (250,000 on Debian's).
    public var maximumBindings: Int? { parser?.maximumBindings }

    /// The parser's answer.
    public func nestingProblem(in sql: String) -> String? { parser?.nestingProblem(in: sql) }
}

extension SQLDialect where Self == SQLiteDialect {
    /// SQLite's spelling.
    public static var sqlite: SQLiteDialect { SQLiteDialect() }
}
