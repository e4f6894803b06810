import PortalEngine
import PortalPredicate
import PortalSQLite

/// One SQLite table as PostgreSQL will hold it (`--copy-to postgres://…`): each column's type,
/// the column SQLite numbers rows by (which becomes an identity), the UNIQUE constraints, and the
/// columns whose values do not all fit their type — all found before anything is written.
struct CopyTablePlan {
    let table: EntityDescription
    /// The PostgreSQL type of each attribute, in order.
    var types: [String]
    /// The INTEGER PRIMARY KEY (SQLite's rowid under another name): an identity on the server,
    /// so that new rows get the next number as they do in SQLite.
    let identity: String?
    /// Column UNIQUE and table UNIQUE (SQLite keeps them as `sqlite_autoindex_…`), each its columns.
    let uniques: [[String]]
    /// Columns holding values their type cannot take: the column, what it holds, the first such
    /// row's key.
    var mixed: [(column: String, holds: String, row: String)] = []

    init(_ table: EntityDescription) {
        self.table = table
        types = table.attributes.map(Self.type(of:))
        let key = table.primaryKey.compactMap { column in table.attributes.first { $0.column == column } }
        identity = table.hasRowid && key.count == 1 && key[0].declaredType.uppercased() == "INTEGER" ? key[0].column : nil
        uniques = table.indexes.filter {
            $0.isUnique && $0.name.lowercased().hasPrefix("sqlite_autoindex_") && Set($0.columns) != Set(table.primaryKey)
        }.map(\.columns)
    }

    /// Finds the columns whose values do not fit their type (text in an INTEGER column, which
    /// SQLite's affinity lets in), with one query over the table and one more per such column.
    mutating func findMixedColumns(_ ctx: ReadContext) throws {
        let dialect = SQLiteDialect()
        func quoted(_ name: String) -> String { dialect.quoted(name) }
        // An INTEGER PRIMARY KEY holds integers only: SQLite sees to it.
        let checked = table.attributes.indices.filter { table.attributes[$0].column != identity }.compactMap { index in
            Self.misfit(types[index], quoted(table.attributes[index].column)).map { (index, $0) }
        }
        guard !checked.isEmpty else { return }
        let counts = try ctx.query("SELECT " + checked.map { "count(*) FILTER (WHERE \($0.1))" }.joined(separator: ", ")
                                   + " FROM " + quoted(table.table)).rows.first?.values ?? []
        let keys = table.identifyingColumns.isEmpty ? ["rowid"] : table.identifyingColumns
        for (position, (index, misfit)) in checked.enumerated() where counts.indices.contains(position) && counts[position] != .integer(0) {
            let column = quoted(table.attributes[index].column)
            let keyColumns = keys.map(quoted).joined(separator: ", ")
            let sql = "SELECT typeof(\(column)), \(keyColumns) FROM \(quoted(table.table)) WHERE \(misfit) LIMIT 1"
            let first = try ctx.query(sql).rows.first?.values ?? []
            let row = zip(keys, first.dropFirst()).map { "\($0) \(Self.shown($1))" }.joined(separator: ", ")
            mixed.append((table.attributes[index].column, first.first?.textValue ?? "other values", row))
        }
    }

    /// A condition true for the values a column of `type` cannot take as they are (COPY would
    /// refuse them, or read them as something else); nil when it takes every value.
    static func misfit(_ type: String, _ column: String) -> String? {
        switch type {
        case "bigint": return "typeof(\(column)) NOT IN ('integer', 'null')"
        case "double precision", "numeric": return "typeof(\(column)) NOT IN ('integer', 'real', 'null')"
        case "boolean": return "typeof(\(column)) NOT IN ('integer', 'null') OR \(column) NOT IN (0, 1)"
        case "bytea": return "typeof(\(column)) NOT IN ('blob', 'null')"
        default: return "typeof(\(column)) = 'blob'"
        }
    }

    /// bigint, double precision, text, bytea or numeric, by the declared type's SQLite affinity.
    static func type(of attribute: AttributeDescription) -> String {
        let declared = attribute.declaredType.uppercased()
        if declared.contains("BOOL") { return "boolean" }
        switch ColumnAffinity(declaredType: attribute.declaredType) {
        case .integer: return "bigint"
        case .real: return "double precision"
        case .text: return "text"
        case .blob: return declared.isEmpty ? "text" : "bytea"
        case .numeric:
            if declared.contains("DATE") || declared.contains("TIME") { return "text" }
            return "numeric"
        }
    }

    private static func shown(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let n): return String(n)
        case .real(let r): return "\(r)"
        case .decimal(let d): return d.text
        case .text(let text): return stringLiteral(text)
        case .blob(let bytes): return "a blob of \(bytes.count) bytes"
        }
    }
}
