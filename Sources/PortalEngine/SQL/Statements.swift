import PortalPredicate

// Statements as values: what to read or write, described by parts (a compiled condition, an
// ORDER BY, assignments), rendered to SQL text and bindings by a dialect. The engine's contexts
// build these instead of concatenating SQL.

/// `SELECT [DISTINCT] … FROM table AS alias [WHERE …] [GROUP BY … [HAVING …]] [ORDER BY …]
/// [LIMIT … OFFSET …]`.
public struct Select: Sendable {
    /// What the select returns.
    public enum Columns: Sendable {
        /// Every column, after the row id when `withRowid` (and the dialect has one).
        case all(withRowid: Bool)
        /// Every attribute of a mapped entity, by its column, under its name, after the row id
        /// when `withRowid`.
        case attributes(of: EntityDescription, withRowid: Bool)
        /// The number of rows (over the limited rows when there is a limit or offset; the number
        /// of groups with GROUP BY).
        case count
        /// Expressions, each with its bindings.
        case expressions([SQLFragment])
    }

    /// The table or view.
    public var table: String
    /// The schema that holds the table, when SQL must name it (`EntityDescription.namespace`).
    public var namespace: String?
    /// For an entity that shares its table with others, what keeps to its own rows (ANDed with
    /// the condition when rendered).
    var ownRows: EntityDescription.Discriminator?
    /// The alias the condition and order refer to.
    public var alias: String
    /// What is returned.
    public var columns: Columns
    /// The WHERE condition, compiled.
    public var condition: SQLFragment?
    /// Drop duplicate rows (`SELECT DISTINCT`).
    public var distinct = false
    /// The GROUP BY terms, compiled; empty for none.
    public var groupBy: [SQLFragment] = []
    /// The HAVING condition on groups, compiled.
    public var having: SQLFragment?
    /// The ORDER BY terms, compiled.
    public var order: SQLFragment?
    /// At most this many rows.
    public var limit: Int?
    /// Rows skipped first.
    public var offset: Int?
    /// A Core Data date as its Unix seconds (a number, at the stored precision) rather than
    /// its text: what typed entities decode a `Date` from.
    public var datesAsSeconds = false

    /// A select of `columns` from `table`.
    public init(_ table: String, alias: String = "t0", columns: Columns = .all(withRowid: false),
                condition: SQLFragment? = nil, order: SQLFragment? = nil, limit: Int? = nil, offset: Int? = nil) {
        self.table = table
        self.alias = alias
        self.columns = columns
        self.condition = condition
        self.order = order
        self.limit = limit
        self.offset = offset
    }

    /// `t0.rowid AS rowid, ` when asked for and the dialect has a row id.
    private func rowid(_ wanted: Bool, _ dialect: some SQLDialect) -> String {
        guard wanted, let rowid = dialect.rowidColumn else { return "" }
        return "\(alias).\(rowid) AS \(rowid), "
    }

    /// The SQL and bindings in `dialect`.
    public func rendered(in dialect: some SQLDialect) -> SQLFragment { dialect.numbered(unnumbered(in: dialect)) }

    /// The SQL with `?` parameters, as statements built of statements compose it.
    package func unnumbered(in dialect: some SQLDialect) -> SQLFragment {
        // A count of limited rows, or of groups, counts the rows of the inner select.
        let limited = limit != nil || offset != nil || !groupBy.isEmpty
        var result = SQLFragment(distinct ? "SELECT DISTINCT " : "SELECT ")
        switch columns {
        case .all(let withRowid):
            result.append(rowid(withRowid, dialect) + "\(alias).*")
        case .attributes(let entity, let withRowid):
            result.append(rowid(withRowid, dialect))
            result = result + SQLFragment.joined(entity.attributeColumns(alias: alias, dialect: dialect, datesAsSeconds: datesAsSeconds),
                                                 separator: ", ")
        case .count: result.append(limited ? "1" : "count(*)")
        case .expressions(let expressions): result = result + SQLFragment.joined(expressions, separator: ", ")
        }
        result.append(" FROM \(dialect.quoted(table: table, in: namespace)) AS \(alias)")
        if let condition = EntityDescription.restricting(condition, to: ownRows, alias: alias, dialect: dialect) {
            result = result + " WHERE " + condition
        }
        if !groupBy.isEmpty { result = result + " GROUP BY " + SQLFragment.joined(groupBy, separator: ", ") }
        if let having { result = result + " HAVING " + having }
        if let order { result = result + " ORDER BY " + order }
        result = result + dialect.limit(limit, offset: offset)
        if case .count = columns, limited { result = "SELECT count(*) FROM (" + result + ") AS counted" }
        return result
    }
}

/// What a write statement returns.
public enum Returning: Sendable {
    /// Nothing.
    case nothing
    /// Every column of the row written.
    case all
    /// These columns of the row written.
    case columns([String])
    /// Every attribute of the entity written, under its name.
    case attributes(of: EntityDescription)

    func rendered(in dialect: some SQLDialect) -> String {
        switch self {
        case .nothing: return ""
        case .all: return dialect.returningAll
        case .columns(let names): return " RETURNING " + names.map(dialect.quoted).joined(separator: ", ")
        case .attributes(let entity):
            return " RETURNING " + entity.attributeColumns(alias: nil, dialect: dialect).map(\.sql).joined(separator: ", ")
        }
    }
}

/// `INSERT INTO table (columns) VALUES (…)` (or `DEFAULT VALUES`), optionally returning the row.
public struct Insert: Sendable {
    /// The table.
    public var table: String
    /// The schema that holds the table, when SQL must name it (`EntityDescription.namespace`).
    public var namespace: String?
    /// The columns given values.
    public var columns: [String]
    /// Each column's value (an expression with its bindings); nil: one `?` per column, bound by
    /// the caller in `columns` order (a statement reused for many rows).
    public var values: [SQLFragment]?
    /// What the statement returns.
    public var returning: Returning

    /// An insert of `columns` into `table`.
    public init(_ table: String, columns: [String], values: [SQLFragment]? = nil, returning: Returning = .nothing) {
        self.table = table
        self.columns = columns
        self.values = values
        self.returning = returning
    }

    /// The SQL and bindings in `dialect`.
    public func rendered(in dialect: some SQLDialect) -> SQLFragment { dialect.numbered(unnumbered(in: dialect)) }

    /// The SQL with `?` parameters, as statements built of statements compose it.
    package func unnumbered(in dialect: some SQLDialect) -> SQLFragment {
        var result = SQLFragment("INSERT INTO \(dialect.quoted(table: table, in: namespace))")
        if columns.isEmpty {
            result.append(" DEFAULT VALUES")
        } else {
            result.append(" (\(columns.map(dialect.quoted).joined(separator: ", "))) VALUES (")
            result.append(values.map { SQLFragment.joined($0, separator: ", ") } ?? .parameters(columns.count))
            result.append(")")
        }
        result.append(returning.rendered(in: dialect))
        return result
    }
}

/// An insert that updates the row whose `key` already exists.
public struct Upsert: Sendable {
    /// The insert: table, columns, values and what it returns.
    public var insert: Insert
    /// The key the conflict is on (the primary key).
    public var key: [String]

    /// An upsert of `columns` into `table` on `key`.
    public init(_ table: String, key: [String], columns: [String], values: [SQLFragment]? = nil,
                returning: Returning = .all) {
        insert = Insert(table, columns: columns, values: values, returning: returning)
        self.key = key
    }

    /// The SQL and bindings in `dialect`. When every column given is part of the key, the key
    /// itself is "updated" (to the same values), so that the statement still returns the row
    /// (`DO NOTHING` would return none).
    public func rendered(in dialect: some SQLDialect) -> SQLFragment {
        let lowerKey = Set(key.map { $0.lowercased() })
        var updated = insert.columns.filter { !lowerKey.contains($0.lowercased()) }
        if updated.isEmpty { updated = key }
        var plain = insert
        plain.returning = .nothing
        var result = plain.unnumbered(in: dialect)
        result.append(dialect.onConflict(key: key, update: updated) + insert.returning.rendered(in: dialect))
        return dialect.numbered(result)
    }
}

/// `UPDATE table AS alias SET column = value, … [WHERE …]`.
public struct Update: Sendable {
    /// The table.
    public var table: String
    /// The schema that holds the table, when SQL must name it (`EntityDescription.namespace`).
    public var namespace: String?
    /// For an entity that shares its table with others, what keeps to its own rows (ANDed with
    /// the condition when rendered).
    var ownRows: EntityDescription.Discriminator?
    /// The alias the values and condition refer to.
    public var alias: String
    /// Each column and its new value (a bound value or an expression).
    public var assignments: [(column: String, value: SQLFragment)]
    /// Which rows (all when nil).
    public var condition: SQLFragment?

    /// An update of `table`.
    public init(_ table: String, alias: String = "t0", set assignments: [(column: String, value: SQLFragment)],
                where condition: SQLFragment? = nil) {
        self.table = table
        self.alias = alias
        self.assignments = assignments
        self.condition = condition
    }

    /// The SQL and bindings in `dialect`.
    public func rendered(in dialect: some SQLDialect) -> SQLFragment {
        var result = SQLFragment("UPDATE \(dialect.quoted(table: table, in: namespace)) AS \(alias) SET ")
        result = result + SQLFragment.joined(assignments.map { dialect.quoted($0.column) + " = " + $0.value },
                                             separator: ", ")
        if let condition = EntityDescription.restricting(condition, to: ownRows, alias: alias, dialect: dialect) {
            result = result + " WHERE " + condition
        }
        return dialect.numbered(result)
    }
}

/// `DELETE FROM table AS alias [WHERE …]`.
public struct Delete: Sendable {
    /// The table.
    public var table: String
    /// The schema that holds the table, when SQL must name it (`EntityDescription.namespace`).
    public var namespace: String?
    /// For an entity that shares its table with others, what keeps to its own rows (ANDed with
    /// the condition when rendered).
    var ownRows: EntityDescription.Discriminator?
    /// The alias the condition refers to.
    public var alias: String
    /// Which rows (all when nil).
    public var condition: SQLFragment?

    /// A delete from `table`.
    public init(_ table: String, alias: String = "t0", where condition: SQLFragment? = nil) {
        self.table = table
        self.alias = alias
        self.condition = condition
    }

    /// The SQL and bindings in `dialect`.
    public func rendered(in dialect: some SQLDialect) -> SQLFragment {
        var result = SQLFragment("DELETE FROM \(dialect.quoted(table: table, in: namespace)) AS \(alias)")
        if let condition = EntityDescription.restricting(condition, to: ownRows, alias: alias, dialect: dialect) {
            result = result + " WHERE " + condition
        }
        return dialect.numbered(result)
    }
}
