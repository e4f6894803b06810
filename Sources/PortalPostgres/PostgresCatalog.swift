import PortalEngine
import PortalPredicate

/// A PostgreSQL database's catalog, read from `pg_catalog`: the tables and views of every schema
/// the role may use as entities, columns as attributes (with their types as declared), primary
/// keys, foreign keys as relationships (named by the same rules as SQLite's), indexes, CHECK
/// constraints and triggers. A relation the connection's `search_path` finds is named as psql
/// names it, by its own name; any other by its schema and name (`sales.OrderLines`).
public struct PostgresCatalog {
    /// The catalog (it has no settings).
    public init() {}

    /// Six queries whatever the number of tables (relations, keys, columns, indexes, checks and
    /// triggers, foreign keys), grouped by relation here: opening a schema of hundreds of tables
    /// costs no more round trips.
    public func schema(of connection: PostgresConnection) throws -> Schema {
        let reader = Reader(connection: connection)
        let inSchema = "relnamespace IN (\(Self.usableSchemas)) AND relkind IN ('r', 'p', 'v', 'm')"
        let keys = try reader.grouped("""
            SELECT i.indrelid::bigint, a.attname FROM pg_catalog.pg_index i
            CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indisprimary AND k.n <= i.indnkeyatts AND i.indrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
            ORDER BY i.indrelid, k.n
            """).mapValues { rows in rows.compactMap { $0[0].textValue } }
        let columns = try reader.grouped("""
            SELECT a.attrelid::bigint, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attgenerated::text, a.attidentity::text
            FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema)) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attrelid, a.attnum
            """)
        // Indexes on expressions or with a WHERE are left out (SQLite could not keep them either);
        // an index's INCLUDE columns (after its `indnkeyatts` key columns) are no part of its key.
        let indexes = try reader.grouped("""
            SELECT i.indrelid::bigint, ic.relname, i.indisunique,
                   array_to_string(array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                       JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                       WHERE k.n <= i.indnkeyatts ORDER BY k.n), chr(31))
            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
            WHERE i.indrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
              AND i.indexprs IS NULL AND i.indpred IS NULL
            ORDER BY i.indrelid, ic.relname
            """)
        // CHECK constraints as the server prints them, and the triggers the user made (not those
        // of foreign keys), each with its CREATE statement.
        let rules = try reader.grouped("""
            SELECT conrelid::bigint, 'check', conname::text, 'CONSTRAINT ' || quote_ident(conname) || ' '
                   || pg_catalog.pg_get_constraintdef(oid) FROM pg_catalog.pg_constraint
            WHERE contype = 'c' AND conrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
            UNION ALL
            SELECT tgrelid::bigint, 'trigger', tgname::text, pg_catalog.pg_get_triggerdef(oid) FROM pg_catalog.pg_trigger
            WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
            ORDER BY 1, 2, 3
            """)
        var entities: [EntityDescription] = []
        var names: [Int64: String] = [:]
        // Those the search path finds first, as psql's \d lists them; then the others by schema.
        for row in try reader.rows("""
            SELECT c.oid::bigint, c.relname, c.relkind::text, n.nspname, pg_catalog.pg_table_is_visible(c.oid)
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.\(inSchema)
            ORDER BY 5 DESC, array_position(pg_catalog.current_schemas(false), n.nspname), n.nspname, c.oid
            """) {
            guard case .integer(let oid) = row[0], case .text(let relation) = row[1], case .text(let kind) = row[2],
                  case .text(let namespace) = row[3] else { continue }
            let name = row[4] == .integer(1) ? relation : namespace + "." + relation
            names[oid] = name
            let key = keys[oid] ?? []
            let attributes = (columns[oid] ?? []).compactMap { column -> AttributeDescription? in
                guard case .text(let columnName) = column[0] else { return nil }
                let identity: String? = switch column[5] {
                case .text("a"): "generated always as identity"
                case .text("d"): "generated by default as identity"
                default: nil
                }
                return AttributeDescription(name: columnName, declaredType: column[1].textValue ?? "",
                                            isNullable: column[2] != .integer(1), defaultValue: identity ?? column[3].textValue,
                                            primaryKeyPosition: key.firstIndex(of: columnName).map { $0 + 1 },
                                            generated: column[4] == .text("s") ? .stored : nil)
            }
            let described = (indexes[oid] ?? []).compactMap { index -> IndexDescription? in
                guard case .text(let indexName) = index[0], case .text(let names) = index[2] else { return nil }
                return IndexDescription(name: indexName, columns: names.split(separator: "\u{1F}").map(String.init),
                                        isUnique: index[1] == .integer(1))
            }
            let isView = kind == "v" || kind == "m"
            let checks = (rules[oid] ?? []).filter { $0[0] == .text("check") }.compactMap { $0[2].textValue }
            let triggers = (rules[oid] ?? []).filter { $0[0] == .text("trigger") }.compactMap { rule in
                rule[1].textValue.flatMap { name in rule[2].textValue.map { SchemaDefinition(type: .trigger, name: name, sql: $0) } }
            }
            entities.append(EntityDescription(name: name, kind: isView ? .view : .table, attributes: attributes,
                                              primaryKey: key, hasRowid: false, relationships: [], indexes: described,
                                              definitions: triggers, checks: checks, table: relation, namespace: namespace))
        }
        return Schema(entities: entities).addingRelationships(try reader.foreignKeys(names: names))
    }

    /// The schemas whose relations are entities: every one the role may use but PostgreSQL's
    /// own (`pg_catalog`, `information_schema`, TOAST and other sessions' temporary tables).
    static let usableSchemas = """
        SELECT oid FROM pg_catalog.pg_namespace WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%' \
        AND pg_catalog.has_schema_privilege(oid, 'USAGE')
        """

    /// The schemas the role may use (`CatalogListing.schemas`); the search order is the place
    /// on the search path (`current_schemas`), none for a schema off it.
    static let schemasListing = """
        SELECT n.nspname AS schema, pg_catalog.pg_get_userbyid(n.nspowner) AS owner,
               (SELECT count(*) FROM pg_catalog.pg_class c
                WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm')) AS entities,
               array_position(pg_catalog.current_schemas(false), n.nspname) AS search_order
        FROM pg_catalog.pg_namespace n WHERE n.oid IN (\(usableSchemas))
        ORDER BY 4 NULLS LAST, 1
        """

    /// The server's databases that take connections (`CatalogListing.databases`).
    static let databasesListing = """
        SELECT datname AS database, pg_catalog.pg_get_userbyid(datdba) AS owner,
               pg_catalog.pg_encoding_to_char(encoding) AS encoding, datcollate AS collation,
               CASE WHEN datname = pg_catalog.current_database() THEN 'yes' ELSE '' END AS current
        FROM pg_catalog.pg_database WHERE NOT datistemplate AND datallowconn ORDER BY 1
        """

    /// A value that changes whenever the tables, views, columns, indexes or constraints of the
    /// schemas (`usableSchemas`) do (each catalog row's id and the transaction that last wrote
    /// it), or the search path that names them, and not when rows are written or statistics
    /// gathered (those update the catalog in place); also, needlessly, after a TRUNCATE, VACUUM
    /// FULL, CLUSTER or GRANT, which rewrite catalog rows. Cheap: one query on the catalog, for
    /// callers that keep what they derived from the schema.
    public func fingerprint(of connection: PostgresConnection) throws -> String {
        let statement = try connection.prepare("""
            SELECT md5(
              pg_catalog.current_schemas(false)::text || '/' ||
              coalesce((SELECT string_agg(c.oid || '.' || c.xmin, ',' ORDER BY c.oid) FROM pg_catalog.pg_class c
                        WHERE c.relnamespace IN (\(Self.usableSchemas))), '') || '/' ||
              coalesce((SELECT string_agg(a.attrelid || '.' || a.attnum || '.' || a.xmin, ',' ORDER BY a.attrelid, a.attnum)
                        FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                        WHERE c.relnamespace IN (\(Self.usableSchemas))), '') || '/' ||
              coalesce((SELECT string_agg(o.oid || '.' || o.xmin, ',' ORDER BY o.oid) FROM pg_catalog.pg_constraint o
                        WHERE o.connamespace IN (\(Self.usableSchemas))), ''))
            """)
        defer { statement.reset() }
        try statement.bind([])
        guard try statement.step(), case .text(let fingerprint) = statement.value(at: 0) else {
            throw PortalError(.database, "PostgreSQL gave no schema fingerprint")
        }
        return fingerprint
    }

    /// The queries, run on the connection.
    private struct Reader {
        let connection: PostgresConnection

        func rows(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
            try connection.rows(sql, values).map(\.values)
        }

        /// The rows by their first column (a relation's oid), each without it, in order.
        func grouped(_ sql: String) throws -> [Int64: [[Value]]] {
            var groups: [Int64: [[Value]]] = [:]
            for row in try rows(sql) {
                guard case .integer(let oid) = row.first else { continue }
                groups[oid, default: []].append(Array(row.dropFirst()))
            }
            return groups
        }

        /// Every foreign key between the entities (`names`: each relation's entity name, by
        /// oid), columns in key order.
        func foreignKeys(names: [Int64: String]) throws -> [ForeignKey] {
            try rows("""
                SELECT c.conrelid::bigint, c.confrelid::bigint,
                       array_to_string(array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                           JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31)),
                       array_to_string(array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
                           JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31))
                FROM pg_catalog.pg_constraint c
                WHERE c.contype = 'f' AND c.connamespace IN (\(PostgresCatalog.usableSchemas)) ORDER BY c.conrelid, c.oid
                """).compactMap { row in
                guard case .integer(let fromOID) = row[0], case .integer(let toOID) = row[1], let from = names[fromOID],
                      let to = names[toOID], case .text(let fromColumns) = row[2], case .text(let toColumns) = row[3] else { return nil }
                return ForeignKey(from: from, to: to,
                                  fromColumns: fromColumns.split(separator: "\u{1F}").map(String.init),
                                  toColumns: toColumns.split(separator: "\u{1F}").map(String.init))
            }
        }
    }
}
