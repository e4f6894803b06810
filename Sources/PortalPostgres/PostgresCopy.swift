import CLibpqLoader
import PortalEngine
import PortalPredicate

/// Copies an SQLite store's tables into a PostgreSQL database (`--copy-to postgres://…`): each
/// table created with PostgreSQL types, its primary key (an INTEGER PRIMARY KEY as an identity),
/// UNIQUE constraints, defaults, indexes and the CHECKs PostgreSQL reads, its rows streamed with
/// `COPY` in bounded memory, then the foreign keys and views — all in one transaction: a copy
/// that fails or is interrupted at any moment leaves no table behind.
public struct PostgresCopy {
    /// How far the copy is: the entity, rows copied, rows in all.
    public typealias Progress = (_ entity: String, _ copied: Int, _ total: Int) -> Void

    /// What becomes of a table with a column whose values do not all fit its type (text in an
    /// INTEGER column): the copy is refused before anything is written, the column is made
    /// `text`, or the table is left out.
    public enum MixedColumns: String, Sendable, CaseIterable {
        case refuse, text, skip
    }

    private let target: PostgresConnection
    private let dialect = PostgresDialect()

    /// A copy into the database `conninfo` names (a URL or `key=value` pairs).
    public init(to conninfo: String) throws {
        target = try PostgresConnection(conninfo)
    }

    /// Stops the statement running on the server; callable from any thread (a signal's watcher).
    public var canceller: @Sendable () -> Void { target.canceller }

    /// Copies every table of `source`, and the views PostgreSQL reads as they are; returns each
    /// table's name and row count, in order. What PostgreSQL cannot take as it is — a view or a
    /// CHECK in SQLite's own SQL, an index on an expression or with a `WHERE`, a default that is
    /// an expression, a foreign key to columns that are not unique — is left out and named to
    /// `note`. `interrupted` is asked between rows and statements: when it says so, the copy
    /// stops with `.interrupted` and is rolled back.
    public func copy(from source: Store, mixed: MixedColumns = .refuse, progress: Progress, interrupted: () -> Bool,
                     note: (String) -> Void = { _ in }) throws -> [(String, Int)] {
        let schema = try source.read { ctx in try ctx.schema }
        let plans = try self.plans(schema, mixed: mixed, from: source, note: note)
        let names = schema.entities.flatMap { [$0.table] + $0.attributes.map(\.column) }
        try target.begin(.immediate)
        do {
            try refuseExisting(plans.map(\.table))
            var copied: [(String, Int)] = []
            for plan in plans {
                let total = try source.read { ctx in try ctx.count(plan.table.name) }
                copied.append((plan.table.name, try copy(plan, total: total, from: source, names: names, progress: progress,
                                                         interrupted: interrupted, note: note)))
            }
            try addForeignKeys(plans.map(\.table), interrupted: interrupted, note: note)
            try addViews(schema.entities.filter { $0.kind == .view }, names: names, note: note)
            if interrupted() { throw PortalError(.interrupted, "interrupted while adding the foreign keys") }
            try target.commit()
            return copied
        } catch {
            if target.isInTransaction { try? target.rollback() }
            throw error
        }
    }

    /// Every table's plan, its mixed columns found (and dealt with as `mixed` says) before
    /// anything is written.
    private func plans(_ schema: Schema, mixed: MixedColumns, from source: Store,
                       note: (String) -> Void) throws -> [CopyTablePlan] {
        let tables = schema.entities.filter { $0.kind == .table && !$0.table.lowercased().hasPrefix("sqlite_") }
        var plans: [CopyTablePlan] = []
        for table in tables {
            var plan = CopyTablePlan(table)
            try source.read { ctx in try plan.findMixedColumns(ctx) }
            for column in plan.mixed {
                let what = "\(table.name): the column \(column.column) holds \(column.holds) values (first in the row \(column.row))"
                    + " that its type \(plan.types[table.attributes.firstIndex { $0.column == column.column } ?? 0]) cannot take"
                switch mixed {
                case .refuse:
                    throw PortalError(.conversion, what + ": nothing was copied; --mixed-columns text copies such columns as"
                                      + " text, --mixed-columns skip leaves their tables out", entity: table.name, attribute: column.column)
                case .text: note(what + ": copied as text")
                case .skip: note(what + ": the table was not copied")
                }
            }
            if !plan.mixed.isEmpty && mixed == .skip { continue }
            for column in plan.mixed {
                if let index = table.attributes.firstIndex(where: { $0.column == column.column }) { plan.types[index] = "text" }
            }
            plans.append(plan)
        }
        return plans
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

    private func copy(_ plan: CopyTablePlan, total: Int, from source: Store, names: [String], progress: Progress,
                      interrupted: () -> Bool, note: (String) -> Void) throws -> Int {
        let table = plan.table
        try target.execute(createTable(plan, note: note))
        let rows = try copyRows(table, total: total, from: source, progress: progress, interrupted: interrupted)
        for columns in plan.uniques {
            try target.execute("ALTER TABLE \(dialect.quoted(table.table)) ADD UNIQUE (" + columns.map(dialect.quoted).joined(separator: ", ") + ")")
        }
        for index in table.indexes where !index.name.lowercased().hasPrefix("sqlite_autoindex") {
            guard Self.isPlain(index) else {
                note("\(table.name): the index \(index.name) is on an expression or has a WHERE: not copied")
                continue
            }
            try target.execute(createIndex(index, on: table))
        }
        if let identity = plan.identity { try setIdentity(of: table, column: identity, from: source) }
        // A CHECK whose SQL PostgreSQL reads, and which the rows meet, is kept; the server decides.
        for check in table.checks {
            if let failure = try attempt("ALTER TABLE \(dialect.quoted(table.table)) ADD " + CopyNames.quoted(in: check, names: names)) {
                note("\(table.name): \(check) was not copied: \(failure.message)")
            }
        }
        if !table.triggers.isEmpty {
            note("\(table.name): its triggers were not copied (their SQL is SQLite's)")
        }
        // Statistics now, not when autovacuum comes: without them the planner may walk a
        // whole table by its key for every row of another (a correlated `ORDER BY … LIMIT 1`).
        try target.execute("ANALYZE " + dialect.quoted(table.table))
        return rows
    }

    /// The identity's next number past the highest copied key, and past the highest an
    /// AUTOINCREMENT key ever had (SQLite's `sqlite_sequence`), so that no number is used again.
    private func setIdentity(of table: EntityDescription, column: String, from source: Store) throws {
        let highest = try source.read { ctx -> Int64? in
            let key = "SELECT max(" + dialect.quoted(column) + ") AS m FROM " + dialect.quoted(table.table)
            let sequences = try ctx.query("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'").rows.first?.values.first
            guard sequences == .integer(1) else { return Self.integer(try ctx.query(key).rows.first?.values.first) }
            let sql = "SELECT max(m) FROM (\(key) UNION ALL SELECT seq FROM sqlite_sequence WHERE name = ?)"
            return Self.integer(try ctx.query(sql, [.text(table.table)]).rows.first?.values.first)
        }
        guard let highest, highest >= 1 else { return }
        let statement = try target.prepare("SELECT setval(pg_catalog.pg_get_serial_sequence($1, $2), $3)")
        defer { statement.reset() }
        try statement.bind([.text(dialect.quoted(table.table)), .text(column), .integer(highest)])
        _ = try statement.step()
    }

    /// `COPY … FROM STDIN` in text format, fed from a streaming read of the source. A row the
    /// server refuses is named: the table, the row's number in the source's order.
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
        } catch var error as PortalError {
            // The copy is ended (the server discards its rows) unless the connection is gone.
            if error.kind != .cannotOpen { try? target.endCopy(failure: "\(error)") }
            if error.kind != .interrupted {
                error.message = "cannot copy \(table.name)" + (error.row.map { ", row \($0)" } ?? "") + ": " + error.message
                error.entity = table.name
            }
            throw error
        } catch {
            try? target.endCopy(failure: "\(error)")
            throw error
        }
        progress(table.name, rows, total)
        return rows
    }

    /// `CREATE TABLE` with each column's PostgreSQL type (by SQLite's affinity rules), its
    /// default where PostgreSQL spells it, NOT NULL and the primary key.
    func createTable(_ plan: CopyTablePlan, note: (String) -> Void = { _ in }) -> String {
        let table = plan.table
        var parts = zip(table.attributes, plan.types).map { attribute, type in
            var column = dialect.quoted(attribute.column) + " " + type
            if attribute.column == plan.identity { return column + " GENERATED BY DEFAULT AS IDENTITY" }
            if let text = attribute.defaultValue {
                if let value = CopyDefaults.postgres(fromSQLite: text, type: type) {
                    column += " DEFAULT " + value
                } else {
                    note("\(table.name): the default of \(attribute.column) (\(text)) was not copied")
                }
            }
            return column + (attribute.isNullable ? "" : " NOT NULL")
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

    /// Each to-one relationship as a foreign key, each in a savepoint of its own: SQLite does not
    /// enforce its foreign keys by default, so one that existing rows break is added `NOT VALID`
    /// (kept for new rows) rather than fail the copy; one PostgreSQL cannot keep (to columns
    /// that are not unique) is left out. Each with a note. A lost server or an interrupt ends
    /// the copy.
    private func addForeignKeys(_ tables: [EntityDescription], interrupted: () -> Bool, note: (String) -> Void) throws {
        let names = Set(tables.map(\.name))
        for table in tables {
            let keys = table.relationships.filter { $0.kind == .toOne && names.contains($0.destination) }
            for (number, relationship) in keys.enumerated() {
                guard let destination = tables.first(where: { $0.name == relationship.destination }) else { continue }
                if interrupted() { throw PortalError(.interrupted, "interrupted while adding the foreign keys") }
                // Short names: PostgreSQL cuts identifiers at 63 bytes; they are per table.
                let constraint = dialect.quoted("fk\(number + 1)_\(relationship.name.prefix(40))")
                let add = "ALTER TABLE \(dialect.quoted(table.table)) ADD CONSTRAINT \(constraint) FOREIGN KEY ("
                    + relationship.sourceColumns.map(dialect.quoted).joined(separator: ", ") + ") REFERENCES "
                    + dialect.quoted(destination.table) + " ("
                    + relationship.destinationColumns.map(dialect.quoted).joined(separator: ", ") + ")"
                let what = "\(table.name): the foreign key \(relationship.name) (\(relationship.sourceColumns.joined(separator: ", ")))"
                guard let failure = try attempt(add) else { continue }
                if failure.kind == .constraint(.foreignKey), try attempt(add + " NOT VALID") == nil {
                    note(what + " is kept for new rows but not validated: \(failure.message)")
                } else {
                    note(what + " was left out: \(failure.message)")
                }
            }
        }
    }

    /// Each view whose SQL PostgreSQL reads as it is, in SQLite's order (a view made from
    /// another comes after it); the others are named.
    private func addViews(_ views: [EntityDescription], names: [String], note: (String) -> Void) throws {
        for view in views {
            guard let sql = view.definitions.first(where: { $0.type == .view })?.sql else { continue }
            if let failure = try attempt(CopyNames.quoted(in: sql, names: names)) {
                note("the view \(view.name) was not copied: its SQL is SQLite's (\(failure.message))")
            }
        }
    }

    /// Runs `sql` in a savepoint: nil when it worked, else the server's error, the transaction
    /// as it was before. A lost server or an interrupt is thrown.
    private func attempt(_ sql: String) throws -> PortalError? {
        try target.savepoint("portal_copy")
        do {
            try target.execute(sql)
            try target.release(savepoint: "portal_copy")
            return nil
        } catch let error as PortalError where error.kind != .cannotOpen && error.kind != .interrupted {
            try target.rollback(toSavepoint: "portal_copy")
            try target.release(savepoint: "portal_copy")
            return error
        }
    }

    private static func integer(_ value: Value?) -> Int64? {
        if case .integer(let n) = value { return n } else { return nil }
    }

    /// An index of plain columns (SQLite's PRAGMA gives an expression's column no name), not
    /// partial.
    static func isPlain(_ index: IndexDescription) -> Bool {
        !index.columns.contains(where: \.isEmpty) && !index.isPartial
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
            case .decimal(let d): buffer.append(contentsOf: d.text.utf8)
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
