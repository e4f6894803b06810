import CLibpqLoader
import PortalEngine
import PortalPredicate

/// Copies an SQLite store's tables into a PostgreSQL database (`--copy-to postgres://…`): each
/// table created with PostgreSQL types, its primary key and indexes, its rows streamed with
/// `COPY` in bounded memory — one transaction per table; foreign keys are added once every table
/// is there. A table that cannot be copied is rolled back whole; the tables before it stay.
public struct PostgresCopy {
    /// How far the copy is: the entity, rows copied, rows in all.
    public typealias Progress = (_ entity: String, _ copied: Int, _ total: Int) -> Void

    private let target: PostgresConnection
    private let dialect = PostgresDialect()

    /// A copy into the database `conninfo` names (a URL or `key=value` pairs).
    public init(to conninfo: String) throws {
        target = try PostgresConnection(conninfo)
    }

    /// Copies every table of `source`; returns each table's name and row count, in order. Views
    /// are not copied (their SQL is SQLite's), nor indexes on expressions or with a `WHERE`; a
    /// foreign key PostgreSQL cannot keep is left out. `note` hears of each such omission.
    /// `interrupted` is asked between rows: when it says so, the table in flight is rolled back
    /// and the copy stops with `.interrupted`.
    public func copy(from source: Store, progress: Progress, interrupted: () -> Bool,
                     note: (String) -> Void = { _ in }) throws -> [(String, Int)] {
        let schema = try source.read { ctx in try ctx.schema }
        let tables = schema.entities.filter { $0.kind == .table && !$0.table.lowercased().hasPrefix("sqlite_") }
        try refuseExisting(tables)
        var copied: [(String, Int)] = []
        for table in tables {
            let total = try source.read { ctx in try ctx.count(table.name) }
            copied.append((table.name, try copy(table, total: total, from: source, progress: progress,
                                                interrupted: interrupted, note: note)))
        }
        addForeignKeys(tables, note: note)
        return copied
    }

    /// The target must not hold any of the tables already: a copy never writes into existing data.
    private func refuseExisting(_ tables: [EntityDescription]) throws {
        let statement = try target.prepare("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1")
        for table in tables {
            defer { statement.reset() }
            try statement.bind([.text(table.table)])
            if try statement.step() {
                throw PortalError(.misuse, "the target already has a table \(table.table): nothing was copied")
            }
        }
    }

    private func copy(_ table: EntityDescription, total: Int, from source: Store, progress: Progress,
                      interrupted: () -> Bool, note: (String) -> Void) throws -> Int {
        try target.begin(.immediate)
        do {
            try target.execute(createTable(table))
            let rows = try copyRows(table, total: total, from: source, progress: progress, interrupted: interrupted)
            for index in table.indexes where !index.name.lowercased().hasPrefix("sqlite_autoindex") {
                guard Self.isPlain(index) else {
                    note("\(table.name): the index \(index.name) is on an expression or has a WHERE: not copied")
                    continue
                }
                try target.execute(createIndex(index, on: table))
            }
            // Statistics now, not when autovacuum comes: without them the planner may walk a
            // whole table by its key for every row of another (a correlated `ORDER BY … LIMIT 1`).
            try target.execute("ANALYZE " + dialect.quoted(table.table))
            try target.commit()
            return rows
        } catch {
            if target.isInTransaction { try? target.rollback() }
            throw error
        }
    }

    /// `COPY … FROM STDIN` in text format, fed from a streaming read of the source.
    private func copyRows(_ table: EntityDescription, total: Int, from source: Store, progress: Progress,
                          interrupted: () -> Bool) throws -> Int {
        let columns = table.attributes.map { dialect.quoted($0.column) }.joined(separator: ", ")
        try target.startCopy("COPY \(dialect.quoted(table.table)) (\(columns)) FROM STDIN")
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        var rows = 0
        do {
            try source.read { ctx in
                try ctx.forEach(table.name) { row in
                    if interrupted() { throw PortalError(.interrupted, "interrupted while copying \(table.name)") }
                    CopyText.append(row.values, to: &buffer)
                    rows += 1
                    if buffer.count >= 1 << 16 {
                        try target.putCopyData(buffer)
                        buffer.removeAll(keepingCapacity: true)
                        progress(table.name, rows, total)
                    }
                }
            }
            if !buffer.isEmpty { try target.putCopyData(buffer) }
            try target.endCopy(failure: nil)
        } catch {
            try? target.endCopy(failure: "\(error)")
            throw error
        }
        progress(table.name, rows, total)
        return rows
    }

    /// `CREATE TABLE` with each column's PostgreSQL type (by SQLite's affinity rules), NOT NULL
    /// and the primary key.
    func createTable(_ table: EntityDescription) -> String {
        var parts = table.attributes.map { attribute in
            dialect.quoted(attribute.column) + " " + Self.type(of: attribute) + (attribute.isNullable ? "" : " NOT NULL")
        }
        if !table.primaryKey.isEmpty {
            parts.append("PRIMARY KEY (" + table.primaryKey.map(dialect.quoted).joined(separator: ", ") + ")")
        }
        return "CREATE TABLE \(dialect.quoted(table.table)) (" + parts.joined(separator: ", ") + ")"
    }

    private func createIndex(_ index: IndexDescription, on table: EntityDescription) -> String {
        "CREATE " + (index.isUnique ? "UNIQUE " : "") + "INDEX " + dialect.quoted(index.name) + " ON "
            + dialect.quoted(table.table) + " (" + index.columns.map(dialect.quoted).joined(separator: ", ") + ")"
    }

    /// Each to-one relationship as a foreign key, added `NOT VALID` and then validated: SQLite
    /// does not enforce its foreign keys by default, so rows that break one keep the constraint
    /// for new rows rather than fail the copy. One PostgreSQL cannot keep (to columns that are
    /// not unique) is left out, with a note.
    private func addForeignKeys(_ tables: [EntityDescription], note: (String) -> Void) {
        let names = Set(tables.map(\.name))
        for table in tables {
            let keys = table.relationships.filter { $0.kind == .toOne && names.contains($0.destination) }
            for (number, relationship) in keys.enumerated() {
                guard let destination = tables.first(where: { $0.name == relationship.destination }) else { continue }
                // Short names: PostgreSQL cuts identifiers at 63 bytes; they are per table.
                let constraint = dialect.quoted("fk\(number + 1)_\(relationship.name.prefix(40))")
                let quotedTable = dialect.quoted(table.table)
                do {
                    try target.execute("ALTER TABLE \(quotedTable) ADD CONSTRAINT \(constraint) FOREIGN KEY ("
                        + relationship.sourceColumns.map(dialect.quoted).joined(separator: ", ") + ") REFERENCES "
                        + dialect.quoted(destination.table) + " ("
                        + relationship.destinationColumns.map(dialect.quoted).joined(separator: ", ") + ") NOT VALID")
                } catch {
                    note("\(table.name): the foreign key \(relationship.name) (\(relationship.sourceColumns.joined(separator: ", "))) "
                         + "was left out: \(error)")
                    continue
                }
                try? target.execute("ALTER TABLE \(quotedTable) VALIDATE CONSTRAINT \(constraint)")
            }
        }
    }

    /// An index of plain columns (SQLite's PRAGMA gives an expression's column no name), not
    /// partial.
    static func isPlain(_ index: IndexDescription) -> Bool {
        !index.columns.contains(where: \.isEmpty) && !index.isPartial
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
}

/// Values in `COPY`'s text format: tab-separated, `\N` for NULL, backslash escapes.
enum CopyText {
    static func append(_ values: [Value], to buffer: inout [UInt8]) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(9) }
            switch value {
            case .null: buffer.append(contentsOf: [92, 78])
            case .integer(let n): buffer.append(contentsOf: String(n).utf8)
            case .real(let r): buffer.append(contentsOf: PostgresConnection.realText(r).utf8)
            case .text(let text): escape(text.utf8, to: &buffer)
            case .blob(let bytes):
                buffer.append(contentsOf: [92, 92, UInt8(ascii: "x")])
                for byte in bytes {
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 15)])
                }
            }
        }
        buffer.append(10)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func escape(_ bytes: String.UTF8View, to buffer: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 92: buffer.append(contentsOf: [92, 92])
            case 9: buffer.append(contentsOf: [92, UInt8(ascii: "t")])
            case 10: buffer.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: buffer.append(contentsOf: [92, UInt8(ascii: "r")])
            default: buffer.append(byte)
            }
        }
    }
}
