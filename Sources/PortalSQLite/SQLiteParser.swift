import CSQLite
import PortalEngine

/// SQLite's parser, asked on a private in-memory connection for what only it knows: how many
/// values a statement may bind in this build, and whether SQL nests deeper than its parser takes.
public struct SQLiteParser: SQLParserLimits {
    /// The parser of the linked SQLite library.
    public init() {}

    /// `SQLITE_LIMIT_VARIABLE_NUMBER` of this build.
    public var maximumBindings: Int? { SQLStatements.bindingLimit }

    /// SQLite's parse error about nesting for `sql`, if it has one. Names are not resolved
    /// (the connection is empty): only the parser's own limits can fail here.
    public func nestingProblem(in sql: String) -> String? {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let db else { return nil }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) != SQLITE_OK else { return nil }
        let message = sqlite3_errmsg(db).map { String(cString: $0) } ?? ""
        let nesting = message.contains("parser stack overflow") || message.contains("Expression tree is too large")
        return nesting ? message : nil
    }
}

extension SQLiteDialect {
    /// SQLite's spelling with the linked library's parser limits: a SQLite store's dialect.
    public static var library: SQLiteDialect { SQLiteDialect(parser: SQLiteParser()) }
}
