import CSQLite
import PortalPredicate
import PortalEngine

// The engine calls `read` on open and whenever PRAGMA schema_version changes. Raw sqlite3 calls
// keep this independent of the engine's connection type.

/// Reads the schema of an open SQLite connection.
public enum SchemaReader {
    /// Tables and views of the main database, with attributes, keys, indexes and the
    /// relationships its foreign keys imply, named as the man page says (DESCRIPTION).
    public static func read(_ db: OpaquePointer) throws -> Schema {
        let pragma = PragmaReader(db: db)
        var entities: [EntityDescription] = []
        var foreignKeys: [ForeignKey] = []
        for (name, kind, withoutRowid) in try pragma.entityList() {
            // A view over a dropped table, or a virtual table whose module is missing, cannot
            // list its columns: it is still an entity, without attributes, rather than a
            // database that cannot be opened at all.
            var attributes = (try? pragma.attributes(of: name)) ?? []
            if kind == .table && !withoutRowid { markRowidAliasNotNull(&attributes) }
            let primaryKey = attributes
                .filter { $0.primaryKeyPosition != nil }
                .sorted { ($0.primaryKeyPosition ?? 0) < ($1.primaryKeyPosition ?? 0) }
                .map(\.name)
            let indexes = kind == .table ? try pragma.indexes(of: name) : []
            if kind == .table { foreignKeys += try pragma.foreignKeys(of: name) }
            let definitions = try pragma.definitions(of: name)
            entities.append(EntityDescription(
                name: name, kind: kind, attributes: attributes, primaryKey: primaryKey,
                hasRowid: kind == .table && !withoutRowid, relationships: [], indexes: indexes,
                definitions: definitions,
                checks: definitions.first.map { CheckConstraints.find(in: $0.sql) } ?? []))
        }
        return Schema(entities: RelationshipNaming.attach(foreignKeys, to: entities))
    }
}

/// An `INTEGER PRIMARY KEY` column is the rowid itself: it can never hold NULL (inserting NULL
/// assigns a new id), though PRAGMA table_info reports it without NOT NULL.
private func markRowidAliasNotNull(_ attributes: inout [AttributeDescription]) {
    let keyColumns = attributes.indices.filter { attributes[$0].primaryKeyPosition != nil }
    guard keyColumns.count == 1, let i = keyColumns.first,
          attributes[i].isDeclaredInteger else { return }
    attributes[i].isNullable = false
}

/// The schema's queries, stepped here: sqlite_schema's, and the PRAGMA statements of each
/// table. These are PRAGMA statements, not the pragma_… table-valued functions: a function is a
/// virtual table whose columns SQLite declares by parsing a CREATE TABLE at its first use, and
/// whose every query prepares the PRAGMA statement anyway (five such declarations were a tenth
/// of a one-line command's instructions).
private final class PragmaReader {
    let db: OpaquePointer

    init(db: OpaquePointer) { self.db = db }

    func entityList() throws -> [(String, EntityDescription.Kind, Bool)] {
        // sqlite_schema keeps creation order, which is what users see in the CLI's .tables.
        let rows = try query(
            "SELECT name, type, sql FROM main.sqlite_schema WHERE type IN ('table','view') "
                + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        // PRAGMA table_list knows (SQLite 3.37+); before that, the table's SQL says so.
        var withoutRowid: Set<String>? = nil
        // Its columns: schema, name, type, ncol, wr, strict.
        if let listed = try? pragma("table_list") {
            withoutRowid = Set(listed.compactMap { row in row[4] == .integer(1) ? row[1].textValue : nil })
        }
        return rows.compactMap { row in
            guard case .text(let name) = row[0], case .text(let type) = row[1] else { return nil }
            let lacksRowid = withoutRowid?.contains(name)
                ?? (row[2].textValue?.uppercased().replacingAll(" ", with: "").hasSuffix("WITHOUTROWID") ?? false)
            return (name, type == "view" ? .view : .table, lacksRowid)
        }
    }

    func attributes(of table: String) throws -> [AttributeDescription] {
        // table_xinfo also lists generated columns; hidden = 1 marks a virtual table's hidden ones.
        // Its columns: cid, name, type, notnull, dflt_value, pk, hidden.
        try pragma("table_xinfo", of: table)
            .compactMap { row in
                guard case .text(let name) = row[1], row[6] != .integer(1) else { return nil }
                let position: Int? = if case .integer(let pk) = row[5], pk > 0 { Int(pk) } else { nil }
                // hidden = 2 marks a virtual generated column, 3 a stored one.
                let generated: AttributeDescription.Generated? = switch row[6] {
                case .integer(2): .virtual
                case .integer(3): .stored
                default: nil
                }
                return AttributeDescription(
                    name: name, declaredType: row[2].textValue ?? "", isNullable: row[3] != .integer(1),
                    defaultValue: row[4].textValue, primaryKeyPosition: position, generated: generated)
            }
    }

    /// The entity's own CREATE statement first, then its indexes' and triggers', in creation order.
    func definitions(of entity: String) throws -> [SchemaDefinition] {
        if definitionsByEntity == nil { definitionsByEntity = try readDefinitions() }
        return definitionsByEntity?[entity] ?? []
    }

    /// Every entity's definitions, by entity, from one scan of sqlite_schema (one scan per entity
    /// made opening a database slower: `shell.startup` guards it).
    private var definitionsByEntity: [String: [SchemaDefinition]]?

    private func readDefinitions() throws -> [String: [SchemaDefinition]] {
        var definitions: [String: [SchemaDefinition]] = [:]
        for row in try query("SELECT type, name, sql, tbl_name FROM main.sqlite_schema WHERE sql IS NOT NULL "
                                + "ORDER BY type NOT IN ('table', 'view'), rowid") {
            guard let type = row[0].textValue.flatMap(SchemaDefinition.Kind.init(rawValue:)),
                  let name = row[1].textValue, let sql = row[2].textValue, let entity = row[3].textValue else { continue }
            definitions[entity, default: []].append(SchemaDefinition(type: type, name: name, sql: sql))
        }
        return definitions
    }

    func indexes(of table: String) throws -> [IndexDescription] {
        // Its columns: seq, name, unique, origin, partial; seq counts from the last created.
        try pragma("index_list", of: table)
            .sorted { integer($0[0]) > integer($1[0]) }
            .compactMap { row -> IndexDescription? in
                guard case .text(let name) = row[1] else { return nil }
                // Its columns: seqno, cid, name, in the index's order.
                let columns = try pragma("index_info", of: name)
                    .map { $0[2].textValue ?? "" }   // expression columns have no name
                return IndexDescription(name: name, columns: columns, isUnique: row[2] == .integer(1),
                                        isPartial: row[4] == .integer(1))
            }
    }

    func foreignKeys(of table: String) throws -> [ForeignKey] {
        // The rows of one key come together (ordered by id): no dictionary by id, whose first
        // use cost the start of every session a scan of the runtime's conformances (Int64:
        // Hashable; `shell.startup` guards it).
        var keys: [ForeignKey] = []
        var currentID: Int64?
        // SQLite numbers foreign keys from the last declared one: id DESC is declaration order.
        // Its columns: id, seq, table, from, to, on_update, on_delete, match.
        let rows = try pragma("foreign_key_list", of: table).sorted { a, b in
            integer(a[0]) != integer(b[0]) ? integer(a[0]) > integer(b[0]) : integer(a[1]) < integer(b[1])
        }
        for row in rows {
            guard case .integer(let id) = row[0], case .text(let parent) = row[2],
                  case .text(let from) = row[3] else { continue }
            if id != currentID {
                keys.append(ForeignKey(from: table, to: parent, fromColumns: [], toColumns: []))
                currentID = id
            }
            keys[keys.count - 1].fromColumns.append(from)
            if let to = row[4].textValue { keys[keys.count - 1].toColumns.append(to) }
        }
        return keys
    }

    /// The rows of `PRAGMA main.<name>`, of the table or index `argument` when given.
    func pragma(_ name: String, of argument: String? = nil) throws -> [[Value]] {
        try query("PRAGMA main.\(name)" + (argument.map { "(\(SQLiteDialect.sqlite.quoted($0)))" } ?? ""))
    }

    /// The rows of `sql`, prepared for this call: each text is run once per read of the schema.
    func query(_ sql: String) throws -> [[Value]] {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard code == SQLITE_OK, let statement else { throw schemaError(code, sql) }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw schemaError(rc, sql) }
            rows.append((0..<sqlite3_column_count(statement)).map { Statement.value(of: statement, at: $0) })
        }
    }

    /// A PRAGMA's counter (seq, id): always an integer.
    private func integer(_ value: Value) -> Int64 {
        if case .integer(let i) = value { i } else { 0 }
    }

    /// The engine's error for `code` (an interrupt stays `.interrupted`, a lock `.busy`), saying
    /// that it was the schema that could not be read.
    private func schemaError(_ code: Int32, _ sql: String) -> PortalError {
        var error = PortalError.sqlite(code, db: db, sql: sql)
        if error.kind != .interrupted { error.message = "cannot read the schema: \(error.message)" }
        return error
    }
}
