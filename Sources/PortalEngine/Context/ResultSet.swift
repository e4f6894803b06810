/// The rows of a raw SQL statement with its column names (known even when there is no row).
public struct ResultSet: Sendable, Hashable, RandomAccessCollection {
    /// The statement's column names, in order.
    public let columns: [String]
    /// The rows, in the order SQLite returned them.
    public var rows: [Row]
    /// Rows changed by the statement when it was an INSERT, UPDATE or DELETE; 0 otherwise.
    public var changes: Int

    /// A result of `rows` under `columns`.
    public init(columns: [String], rows: [Row], changes: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.changes = changes
    }

    /// The position of the first row.
    public var startIndex: Int { rows.startIndex }
    /// The position after the last row.
    public var endIndex: Int { rows.endIndex }
    /// The row at `position`.
    public subscript(position: Int) -> Row { rows[position] }
}

/// What a query compiles to and how SQLite will run it (the shell's `explain`).
public struct Explanation: Sendable, Hashable {
    /// The SQL the query compiled to.
    public var sql: String
    /// The values bound to its parameters, in order.
    public var bindings: [Value]
    /// The rows of `EXPLAIN QUERY PLAN` (columns id, parent, notused, detail).
    public var plan: [Row]
    /// The `detail` column of each plan row, indented by depth.
    public var planLines: [String] {
        var depth: [Int64: Int] = [:]
        return plan.map { row in
            guard case .integer(let id)? = row["id"], case .integer(let parent)? = row["parent"] else {
                return row["detail"].map { "\($0)" } ?? ""
            }
            let level = (depth[parent] ?? -1) + 1
            depth[id] = level
            let detail: String
            if case .text(let text)? = row["detail"] { detail = text } else { detail = "" }
            return String(repeating: "  ", count: level) + detail
        }
    }
}
