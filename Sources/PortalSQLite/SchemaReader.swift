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
        defer { pragma.finalize() }
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

/// The PRAGMA queries, stepped here. Each text is prepared once per read of the schema and
/// reused for every table (parsing them per table was most of the cost of opening a database).
private final class PragmaReader {
    let db: OpaquePointer
    private var prepared: [String: OpaquePointer] = [:]

    init(db: OpaquePointer) { self.db = db }

    func finalize() {
        for statement in prepared.values { sqlite3_finalize(statement) }
        prepared = [:]
    }

    func entityList() throws -> [(String, EntityDescription.Kind, Bool)] {
        // sqlite_schema keeps creation order, which is what users see in the CLI's .tables.
        let rows = try query(
            "SELECT name, type, sql FROM main.sqlite_schema WHERE type IN ('table','view') "
                + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        // PRAGMA table_list knows (SQLite 3.37+); before that, the table's SQL says so.
        var withoutRowid: Set<String>? = nil
        if let listed = try? query("SELECT name, wr FROM pragma_table_list WHERE schema = 'main'") {
            withoutRowid = Set(listed.compactMap { row in row[1] == .integer(1) ? row[0].textValue : nil })
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
        try query("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?)", [table])
            .compactMap { row in
                guard case .text(let name) = row[0], row[5] != .integer(1) else { return nil }
                let position: Int? = if case .integer(let pk) = row[4], pk > 0 { Int(pk) } else { nil }
                // hidden = 2 marks a virtual generated column, 3 a stored one.
                let generated: AttributeDescription.Generated? = switch row[5] {
                case .integer(2): .virtual
                case .integer(3): .stored
                default: nil
                }
                return AttributeDescription(
                    name: name, declaredType: row[1].textValue ?? "", isNullable: row[2] != .integer(1),
                    defaultValue: row[3].textValue, primaryKeyPosition: position, generated: generated)
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
        try query("SELECT name, \"unique\", partial FROM pragma_index_list(?) ORDER BY seq DESC", [table])
            .compactMap { row -> IndexDescription? in
                guard case .text(let name) = row[0] else { return nil }
                let columns = try query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [name])
                    .map { $0[0].textValue ?? "" }   // expression columns have no name
                return IndexDescription(name: name, columns: columns, isUnique: row[1] == .integer(1),
                                        isPartial: row[2] == .integer(1))
            }
    }

    func foreignKeys(of table: String) throws -> [ForeignKey] {
        // The rows of one key come together (ordered by id): no dictionary by id, whose first
        // use cost the start of every session a scan of the runtime's conformances (Int64:
        // Hashable; `shell.startup` guards it).
        var keys: [ForeignKey] = []
        var currentID: Int64?
        // SQLite numbers foreign keys from the last declared one: id DESC is declaration order.
        let rows = try query("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id DESC, seq",
                             [table])
        for row in rows {
            guard case .integer(let id) = row[0], case .text(let parent) = row[1],
                  case .text(let from) = row[2] else { continue }
            if id != currentID {
                keys.append(ForeignKey(from: table, to: parent, fromColumns: [], toColumns: []))
                currentID = id
            }
            keys[keys.count - 1].fromColumns.append(from)
            if let to = row[3].textValue { keys[keys.count - 1].toColumns.append(to) }
        }
        return keys
    }

    func query(_ sql: String, _ arguments: [String] = []) throws -> [[Value]] {
        let statement = try statement(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, argument) in arguments.enumerated() {
            sqlite3_bind_text(statement, Int32(index + 1), argument, -1, portal_sqlite_transient())
        }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw schemaError(rc, sql) }
            rows.append((0..<sqlite3_column_count(statement)).map { Statement.value(of: statement, at: $0) })
        }
    }

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let statement = prepared[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw schemaError(code, sql) }
        prepared[sql] = statement
        return statement
    }

    /// The engine's error for `code` (an interrupt stays `.interrupted`, a lock `.busy`), saying
    /// that it was the schema that could not be read.
    private func schemaError(_ code: Int32, _ sql: String) -> PortalError {
        var error = PortalError.sqlite(code, db: db, sql: sql)
        if error.kind != .interrupted { error.message = "cannot read the schema: \(error.message)" }
        return error
    }
}
