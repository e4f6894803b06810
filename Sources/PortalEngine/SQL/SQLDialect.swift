import PortalPredicate

/// How SQL text is spelled for one database engine: identifier quoting, the implicit row id,
/// limits, upsert and `RETURNING`. Statements (`Select`, `Insert`, `Upsert`, `Update`, `Delete`)
/// are rendered by a dialect, and nothing else in the engine spells these parts. SQLite is the
/// first implementation.
public protocol SQLDialect: Sendable {
    /// `name` as an identifier (always quoted, so any name works and none is a keyword).
    func quoted(_ name: String) -> String
    /// The implicit row id column, when the engine has one (SQLite's `rowid`).
    var rowidColumn: String? { get }
    /// `LIMIT … OFFSET …` with the values bound (empty when both are nil).
    func limit(_ limit: Int?, offset: Int?) -> SQLFragment
    /// What follows `INSERT … VALUES (…)` to update the row whose `key` already exists.
    func onConflict(key: [String], update columns: [String]) -> String
    /// What ends a write statement that returns the rows it wrote.
    var returningAll: String { get }
}

/// SQLite's spelling.
public struct SQLiteDialect: SQLDialect {
    /// The dialect (it has no settings).
    public init() {}

    /// In double quotes, inner quotes doubled.
    public func quoted(_ name: String) -> String {
        // Names rarely hold a quote: skip the character loop then.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var result = "\""
        for character in name {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result + "\""
    }

    /// `rowid`.
    public var rowidColumn: String? { "rowid" }

    /// `LIMIT ?` (−1 for none when only an offset is given) and `OFFSET ?`.
    public func limit(_ limit: Int?, offset: Int?) -> SQLFragment {
        guard limit != nil || offset != nil else { return SQLFragment("") }
        var fragment = SQLFragment(" LIMIT ?", [.integer(Int64(max(limit ?? -1, -1)))])
        if let offset {
            fragment.sql += " OFFSET ?"
            fragment.bindings.append(.integer(Int64(offset)))
        }
        return fragment
    }

    /// ` ON CONFLICT (key) DO UPDATE SET c = excluded.c, …`.
    public func onConflict(key: [String], update columns: [String]) -> String {
        " ON CONFLICT (\(key.map(quoted).joined(separator: ", "))) DO UPDATE SET "
            + columns.map { "\(quoted($0)) = excluded.\(quoted($0))" }.joined(separator: ", ")
    }

    /// ` RETURNING *`.
    public var returningAll: String { " RETURNING *" }
}

extension SQLDialect where Self == SQLiteDialect {
    /// SQLite's spelling.
    public static var sqlite: SQLiteDialect { SQLiteDialect() }
}

/// `name` quoted by SQLite's dialect (the compiler's and contexts' shorthand; the compiler speaks
/// SQLite only for now).
func quoted(_ name: String) -> String { SQLiteDialect().quoted(name) }

/// `?, ?, ?` for `count` parameters.
func placeholders(_ count: Int) -> String {
    var result = ""
    result.reserveCapacity(count * 3)
    for i in 0..<count { result += i == 0 ? "?" : ", ?" }
    return result
}
