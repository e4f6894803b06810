import PortalEngine
import PortalSQLite
import PortalPredicate
#if canImport(Glibc)
import Glibc
#endif

/// Copies a PostgreSQL database's tables into a new SQLite file (`portal-shell postgres://…
/// --copy-to new.sqlite`): each table created with the SQLite type of its column type (a domain's
/// base type, an enum as TEXT with a CHECK of its labels), its primary key, defaults, the CHECKs
/// SQLite reads, foreign keys and indexes; a partitioned table once, with the rows of all its partitions. Its rows
/// are read through a server-side cursor (bounded memory) from one snapshot of the server, and
/// written in one transaction per table; a copy that fails removes the new file.
public struct PostgresExport {
    public typealias Progress = PostgresCopy.Progress

    private let source: PostgresConnection
    private let dialect = SQLiteDialect()

    /// An export of the database `conninfo` names.
    public init(from conninfo: String) throws {
        source = try PostgresConnection(conninfo)
    }

    /// Stops the statement running on the server; callable from any thread (a signal's watcher).
    public var canceller: @Sendable () -> Void { source.canceller }

    /// Writes every table into a new SQLite file at `path` (refused when it exists); returns each
    /// table and its row count. `interrupted` is asked between batches of rows; `note` hears of
    /// what SQLite cannot keep (a CHECK, a view, a default that is an expression). When the copy
    /// fails, the new file is removed.
    public func copy(to path: String, progress: Progress, interrupted: () -> Bool,
                     note: (String) -> Void = { _ in }) throws -> [(String, Int)] {
        let file = try NewDatabaseFile(path)
        do {
            // One snapshot of the server for the catalog and every table, so that they agree.
            try source.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { try? source.rollback() }
            let schema = try PostgresCatalog().schema(of: source)
            let types = try ExportTypes(source)
            let partitions = types.partitions
            // The tables the search path finds: an SQLite file has one namespace for them.
            let tables = schema.entities.filter { $0.kind == .table && $0.isOnSearchPath && !partitions.contains($0.table) }
            let copied = try copy(tables, types: types, to: path, progress: progress, interrupted: interrupted, note: note)
            try addViews(to: path, note: note)
            return copied
        } catch {
            // A copy that failed leaves nothing behind, not half the tables.
            file.remove()
            throw error
        }
    }

    private func copy(_ tables: [EntityDescription], types: ExportTypes, to path: String, progress: Progress,
                      interrupted: () -> Bool, note: (String) -> Void) throws -> [(String, Int)] {
        let target = try Store(path: path, options: StoreOptions(readOnly: false, create: true))
        defer { try? target.close() }
        // Tables arrive one by one in the server's order, not their keys' order: the rows are
        // checked against their foreign keys by the server already.
        try target.writeOutsideTransaction { ctx in try ctx.execute("PRAGMA foreign_keys = OFF") }
        let names = Set(tables.map(\.table))
        try target.write { ctx in
            for table in tables {
                let checks = try self.checks(of: table, types: types, in: ctx, note: note)
                try ctx.execute(createTable(table, types: types, tables: names, checks: checks, note: note))
            }
        }
        var copied: [(String, Int)] = []
        for table in tables {
            let rows = try target.write { ctx in
                let rows = try copyRows(table, types: types, into: ctx, progress: progress, interrupted: interrupted, note: note)
                for index in table.indexes where !(index.isUnique && index.columns == table.primaryKey) {
                    try ctx.execute(createIndex(index, on: table))
                }
                return rows
            }
            if !table.triggers.isEmpty { note("\(table.name): its triggers were not copied (their SQL is PostgreSQL's)") }
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

    /// The rows through a cursor, 10,000 at a time. A failure names the table, and the row when
    /// SQLite refused it.
    private func copyRows(_ table: EntityDescription, types: ExportTypes, into ctx: WriteContext,
                          progress: Progress, interrupted: () -> Bool, note: (String) -> Void) throws -> Int {
        let columns = table.attributes.map(\.column)
        let server = PostgresDialect()
        var rows = 0
        var refused: Int?
        // SQLite keeps a numeric as a double: the columns where digits were rounded away.
        var rounded = [Int](repeating: 0, count: columns.count)
        defer {
            for (index, count) in rounded.enumerated() where count > 0 {
                note("\(table.name).\(columns[index]): \(count) numeric value\(count == 1 ? " has" : "s have") more digits "
                    + "than SQLite's REAL keeps (about 15), and \(count == 1 ? "was" : "were") rounded")
            }
        }
        do {
            let total = try count(table)
            try source.execute("DECLARE portal_export NO SCROLL CURSOR FOR SELECT "
                + table.attributes.map { types.selected(server.quoted($0.column), type: $0.declaredType) }.joined(separator: ", ")
                + " FROM " + server.quoted(table.table))
            defer { try? source.execute("CLOSE portal_export") }
            let fetch = try source.prepare("FETCH 10000 FROM portal_export")
            while true {
                if interrupted() { throw PortalError(.interrupted, "interrupted while copying \(table.name)") }
                defer { fetch.reset() }
                var batch = 0
                while try fetch.step() {
                    refused = rows + batch + 1
                    let values = (0..<columns.count).map { fetch.value(at: Int32($0)) }
                    for (index, value) in values.enumerated() {
                        if case .decimal(let decimal) = value, !decimal.isDoubleExactly { rounded[index] += 1 }
                    }
                    try ctx.insert(table.name, columns: columns, values: values)
                    refused = nil
                    batch += 1
                }
                rows += batch
                progress(table.name, rows, total)
                if batch == 0 { return rows }
            }
        } catch var error as PortalError where error.kind != .interrupted {
            error.message = "cannot copy \(table.name)" + (refused.map { ", row \($0)" } ?? "") + ": " + error.message
            error.entity = table.name
            error.row = refused
            throw error
        }
    }

    /// Each view whose SQL SQLite reads as it is (tried as a query first), in the order they
    /// were made; the others, and materialized views (their rows are a snapshot), are named.
    private func addViews(to path: String, note: (String) -> Void) throws {
        let views = try source.rows("""
            SELECT c.relname, c.relkind::text, pg_catalog.pg_get_viewdef(c.oid) FROM pg_catalog.pg_class c
            WHERE c.relkind IN ('v', 'm') AND pg_catalog.pg_table_is_visible(c.oid)
              AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace) ORDER BY c.oid
            """).map(\.values)
        guard !views.isEmpty else { return }
        let target = try Store(path: path, options: StoreOptions(readOnly: false, create: false))
        defer { try? target.close() }
        try target.write { ctx in
            for view in views {
                guard case .text(let name) = view[0], case .text(var select) = view[2] else { continue }
                guard view[1] == .text("v") else {
                    note("the materialized view \(name) was not copied")
                    continue
                }
                select = ExportTypes.withoutLiteralCasts(select).trimmingCharacters(in: .whitespacesAndNewlines)
                if select.hasSuffix(";") { select.removeLast() }
                do {
                    _ = try ctx.query("SELECT * FROM (\(select)) LIMIT 0")
                    try ctx.execute("CREATE VIEW \(dialect.quoted(name)) AS \(select)")
                } catch {
                    note("the view \(name) was not copied: its SQL is PostgreSQL's (\((error as? PortalError)?.message ?? "\(error)"))")
                }
            }
        }
    }

    /// The table's CHECK constraints and its columns' domains' that SQLite reads as they are
    /// (no casts, no function of PostgreSQL's alone): each tried in a query on a row of NULLs
    /// first. The others are named to `note`.
    private func checks(of table: EntityDescription, types: ExportTypes, in ctx: WriteContext,
                        note: (String) -> Void) throws -> [String] {
        var candidates = table.checks.map(ExportTypes.withoutLiteralCasts)
        for attribute in table.attributes {
            candidates += types.domainChecks(of: attribute.declaredType).map { check in
                ExportTypes.withoutLiteralCasts(check)
                    .replacingOccurrences(of: #"\bVALUE\b"#, with: dialect.quoted(attribute.column), options: .regularExpression)
            }
        }
        let row = "SELECT " + table.attributes.map { "NULL AS " + dialect.quoted($0.column) }.joined(separator: ", ")
        return candidates.filter { check in
            guard let start = check.range(of: "CHECK "), !check.hasSuffix(" NOT VALID") else {
                note("\(table.name): \(check) was not copied: not validated on the server")
                return false
            }
            do {
                _ = try ctx.query("SELECT 1 FROM (\(row)) WHERE " + check[start.upperBound...])
                return true
            } catch {
                note("\(table.name): \(check) was not copied: its SQL is PostgreSQL's (\((error as? PortalError)?.message ?? "\(error)"))")
                return false
            }
        }
    }

    /// `CREATE TABLE` with SQLite's type for each PostgreSQL type, its default where SQLite
    /// spells it, NOT NULL, an enum's labels as a CHECK, the primary key and the foreign keys to
    /// the tables copied (SQLite lets them name tables made later).
    func createTable(_ table: EntityDescription, types: ExportTypes = ExportTypes(), tables: Set<String>? = nil,
                     checks: [String] = [], note: (String) -> Void = { _ in }) -> String {
        let rowid = table.primaryKey.count == 1 ? table.primaryKey[0] : nil
        var parts = table.attributes.map { attribute in
            let type = types.sqliteType(of: attribute.declaredType)
            var column = dialect.quoted(attribute.column) + " " + type
            if let text = attribute.defaultValue, !text.hasPrefix("generated ") {
                if let value = CopyDefaults.sqlite(fromPostgres: text) {
                    column += " DEFAULT " + value
                } else if !(attribute.column == rowid && type == "INTEGER") {
                    // A key numbered by a sequence is numbered by SQLite as its INTEGER PRIMARY KEY.
                    note("\(table.name): the default of \(attribute.column) (\(text)) was not copied")
                }
            }
            column += attribute.isNullable ? "" : " NOT NULL"
            if let labels = types.enumLabels(of: attribute.declaredType) {
                column += " CHECK (" + dialect.quoted(attribute.column) + " IN ("
                    + labels.map(stringLiteral).joined(separator: ", ") + "))"
            }
            return column
        }
        if !table.primaryKey.isEmpty {
            parts.append("PRIMARY KEY (" + table.primaryKey.map(dialect.quoted).joined(separator: ", ") + ")")
        }
        parts += checks
        for relationship in table.relationships where relationship.kind == .toOne && tables?.contains(relationship.destination) ?? true {
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
}

/// The server's own types as SQLite holds them: a domain as its base type, an enum as TEXT
/// (with its labels), `numeric` as NUMERIC (its precision kept in the declared type), `timestamptz`
/// as text with its offset.
struct ExportTypes {
    /// Each domain's base type, by the name columns give it.
    private var domains: [String: String] = [:]
    /// Each enum's labels in order, by the name columns give it.
    private var enums: [String: [String]] = [:]
    /// The partitions of partitioned tables (copied through their parents).
    private(set) var partitions: Set<String> = []
    /// Each domain's CHECK constraints (`CHECK ((VALUE > 0))`), by the name columns give it.
    private var checks: [String: [String]] = [:]

    init() {}

    init(_ connection: PostgresConnection) throws {
        for row in try connection.rows("""
            SELECT pg_catalog.format_type(t.oid, NULL), pg_catalog.format_type(t.typbasetype, t.typtypmod), t.typtype::text,
                   array_to_string(array(SELECT e.enumlabel FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid
                                         ORDER BY e.enumsortorder), chr(31))
            FROM pg_catalog.pg_type t WHERE t.typtype IN ('d', 'e')
              AND t.typnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
            """).map(\.values) {
            guard case .text(let name) = row[0] else { continue }
            if row[2] == .text("d"), case .text(let base) = row[1] { domains[name] = base }
            if row[2] == .text("e"), case .text(let labels) = row[3] { enums[name] = labels.split(separator: "\u{1F}").map(String.init) }
        }
        for row in try connection.rows("""
            SELECT pg_catalog.format_type(c.contypid, NULL), pg_catalog.pg_get_constraintdef(c.oid) FROM pg_catalog.pg_constraint c
            WHERE c.contype = 'c' AND c.contypid <> 0
              AND c.connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace) ORDER BY c.oid
            """).map(\.values) {
            if case .text(let domain) = row[0], case .text(let check) = row[1] { checks[domain, default: []].append(check) }
        }
        partitions = Set(try connection.rows("""
            SELECT relname FROM pg_catalog.pg_class c WHERE relispartition AND pg_catalog.pg_table_is_visible(c.oid)
            """).compactMap { $0.values.first?.textValue })
    }

    /// The type under any domains (a domain may be over another).
    private func base(of type: String) -> String {
        var type = type
        for _ in 0..<8 { guard let next = domains[type] else { break }; type = next }
        return type
    }

    func enumLabels(of type: String) -> [String]? { enums[base(of: type)] }

    /// PostgreSQL's SQL as the server prints it, without the casts it puts on constants that
    /// SQLite has no use for (`' '::text`, `(0)::numeric`): a view's or a CHECK's SQL is then
    /// often SQLite's too.
    static func withoutLiteralCasts(_ sql: String) -> String {
        sql.replacingOccurrences(of: #"('(?:[^']|'')*')::(?:text|character varying|bpchar|name)\b"#, with: "$1",
                                 options: .regularExpression)
            .replacingOccurrences(of: #"\((-?[0-9]+(?:\.[0-9]+)?)\)::(?:numeric|integer|bigint|smallint|double precision|real)\b"#,
                                  with: "($1)", options: .regularExpression)
    }

    /// The CHECKs of the domain `type` and of the domains under it.
    func domainChecks(of type: String) -> [String] {
        var found: [String] = []
        var type = type
        for _ in 0..<8 {
            found += checks[type] ?? []
            guard let next = domains[type] else { break }
            type = next
        }
        return found
    }

    /// INTEGER, REAL, NUMERIC, BOOLEAN, BLOB, DATETIME, TIMESTAMPTZ or TEXT, by the type's name.
    func sqliteType(of postgresType: String) -> String {
        let type = base(of: postgresType).lowercased()
        if type.hasPrefix("boolean") { return "BOOLEAN" }
        if ["smallint", "integer", "bigint", "int2", "int4", "int8", "oid"].contains(type) || type.hasSuffix("serial") {
            return "INTEGER"
        }
        if type.hasPrefix("double") || type.hasPrefix("real") { return "REAL" }
        // SQLite's NUMERIC: whole numbers as integers, others as REAL (15 significant digits).
        if type.hasPrefix("numeric") || type.hasPrefix("decimal") { return type.uppercased() }
        if type == "bytea" { return "BLOB" }
        if type.hasPrefix("timestamp"), type.hasSuffix("with time zone") { return "TIMESTAMPTZ" }
        if type.hasPrefix("timestamp") || type == "date" { return "DATETIME" }
        return "TEXT"
    }

    /// The column as the copy reads it: `timestamptz` with its offset (`+00:00`, the session
    /// being in UTC), which SQLite's date functions read.
    func selected(_ column: String, type postgresType: String) -> String {
        sqliteType(of: postgresType) == "TIMESTAMPTZ" ? "regexp_replace(\(column)::text, '([+-][0-9][0-9])$', '\\1:00')" : column
    }
}
