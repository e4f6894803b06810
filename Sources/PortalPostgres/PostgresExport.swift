import PortalEngine
import PortalPredicate
#if canImport(Glibc)
import Glibc
#endif

/// Copies a PostgreSQL database's tables into a new SQLite file (`portal-shell postgres://…
/// --copy-to new.sqlite`): each table created with the SQLite type of its column type, its
/// primary key, foreign keys and indexes; its rows read through a server-side cursor (bounded
/// memory) from one snapshot of the server, and written in one transaction per table.
public struct PostgresExport {
    public typealias Progress = PostgresCopy.Progress

    private let source: PostgresConnection
    private let dialect = SQLiteDialect()

    /// An export of the database `conninfo` names.
    public init(from conninfo: String) throws {
        source = try PostgresConnection(conninfo)
    }

    /// Writes every table into a new SQLite file at `path` (refused when it exists); returns each
    /// table and its row count. `interrupted` is asked between batches of rows. When the copy
    /// fails, the new file is removed.
    public func copy(to path: String, progress: Progress, interrupted: () -> Bool) throws -> [(String, Int)] {
        let file = try NewDatabaseFile(path)
        do {
            let schema = try PostgresCatalog().schema(of: source)
            // The tables the search path finds: an SQLite file has one namespace for them.
            return try copy(schema.entities.filter { $0.kind == .table && $0.isOnSearchPath }, to: path, progress: progress,
                            interrupted: interrupted)
        } catch {
            // A copy that failed leaves nothing behind, not half the tables.
            file.remove()
            throw error
        }
    }

    private func copy(_ tables: [EntityDescription], to path: String, progress: Progress,
                      interrupted: () -> Bool) throws -> [(String, Int)] {
        let target = try Store(path: path, options: StoreOptions(readOnly: false, create: true))
        defer { try? target.close() }
        // One snapshot of the server for every table, so that their rows agree with each other.
        try source.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? source.rollback() }
        // Tables arrive one by one in the server's order, not their keys' order: the rows are
        // checked against their foreign keys by the server already.
        try target.writeOutsideTransaction { ctx in try ctx.execute("PRAGMA foreign_keys = OFF") }
        try target.write { ctx in
            for table in tables { try ctx.execute(createTable(table)) }
        }
        var copied: [(String, Int)] = []
        for table in tables {
            let total = try count(table)
            let rows = try target.write { ctx in
                let rows = try copyRows(table, total: total, into: ctx, progress: progress, interrupted: interrupted)
                for index in table.indexes where !(index.isUnique && index.columns == table.primaryKey) {
                    try ctx.execute(createIndex(index, on: table))
                }
                return rows
            }
            copied.append((table.name, rows))
        }
        return copied
    }

    private func count(_ table: EntityDescription) throws -> Int {
        let statement = try source.prepare("SELECT count(*) FROM " + PostgresDialect().quoted(table.table))
        defer { statement.reset() }
        guard try statement.step(), case .integer(let n) = statement.value(at: 0) else { return 0 }
        return Int(n)
    }

    /// The rows through a cursor, 10,000 at a time.
    private func copyRows(_ table: EntityDescription, total: Int, into ctx: WriteContext, progress: Progress,
                          interrupted: () -> Bool) throws -> Int {
        let columns = table.attributes.map(\.column)
        let server = PostgresDialect()
        try source.execute("DECLARE portal_export NO SCROLL CURSOR FOR SELECT "
            + columns.map(server.quoted).joined(separator: ", ") + " FROM " + server.quoted(table.table))
        defer { try? source.execute("CLOSE portal_export") }
        let fetch = try source.prepare("FETCH 10000 FROM portal_export")
        var rows = 0
        while true {
            if interrupted() { throw PortalError(.interrupted, "interrupted while copying \(table.name)") }
            defer { fetch.reset() }
            var batch = 0
            while try fetch.step() {
                try ctx.insert(table.name, columns: columns,
                               values: (0..<columns.count).map { fetch.value(at: Int32($0)) })
                batch += 1
            }
            rows += batch
            progress(table.name, rows, total)
            if batch == 0 { return rows }
        }
    }

    /// `CREATE TABLE` with SQLite's type for each PostgreSQL type, NOT NULL, the primary key and
    /// the foreign keys (SQLite lets them name tables made later).
    func createTable(_ table: EntityDescription) -> String {
        var parts = table.attributes.map { attribute in
            dialect.quoted(attribute.column) + " " + Self.type(of: attribute.declaredType) + (attribute.isNullable ? "" : " NOT NULL")
        }
        if !table.primaryKey.isEmpty {
            parts.append("PRIMARY KEY (" + table.primaryKey.map(dialect.quoted).joined(separator: ", ") + ")")
        }
        for relationship in table.relationships where relationship.kind == .toOne {
            parts.append("FOREIGN KEY (" + relationship.sourceColumns.map(dialect.quoted).joined(separator: ", ")
                + ") REFERENCES " + dialect.quoted(relationship.destination) + " ("
                + relationship.destinationColumns.map(dialect.quoted).joined(separator: ", ") + ")")
        }
        return "CREATE TABLE \(dialect.quoted(table.table)) (" + parts.joined(separator: ", ") + ")"
    }

    private func createIndex(_ index: IndexDescription, on table: EntityDescription) -> String {
        "CREATE " + (index.isUnique ? "UNIQUE " : "") + "INDEX " + dialect.quoted(index.name) + " ON "
            + dialect.quoted(table.table) + " (" + index.columns.map(dialect.quoted).joined(separator: ", ") + ")"
    }

    /// INTEGER, REAL, NUMERIC, BOOLEAN, BLOB or TEXT, by the PostgreSQL type's name.
    static func type(of postgresType: String) -> String {
        let type = postgresType.lowercased()
        if type.hasPrefix("boolean") { return "BOOLEAN" }
        if ["smallint", "integer", "bigint", "int2", "int4", "int8", "oid"].contains(type) || type.hasSuffix("serial") {
            return "INTEGER"
        }
        if type.hasPrefix("double") || type.hasPrefix("real") { return "REAL" }
        if type.hasPrefix("numeric") || type.hasPrefix("decimal") { return "NUMERIC" }
        if type == "bytea" { return "BLOB" }
        if type.hasPrefix("timestamp") || type == "date" { return "DATETIME" }
        return "TEXT"
    }
}
