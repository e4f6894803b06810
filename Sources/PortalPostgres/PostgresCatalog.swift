import PortalEngine
import PortalPredicate

/// A PostgreSQL database's catalog, read from `pg_catalog` for the connection's current schema:
/// tables and views as entities, columns as attributes (with their types as declared), primary
/// keys, foreign keys as relationships (named by the same rules as SQLite's) and indexes.
public struct PostgresCatalog: Catalog {
    /// The catalog (it has no settings).
    public init() {}

    /// Four queries whatever the number of tables (relations, keys, columns, indexes), grouped
    /// by relation here: opening a schema of hundreds of tables costs no more round trips.
    public func schema(of connection: PostgresConnection) throws -> Schema {
        let reader = Reader(connection: connection)
        let inSchema = "relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'v', 'm')"
        let keys = try reader.grouped("""
            SELECT i.indrelid::bigint, a.attname FROM pg_catalog.pg_index i
            CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indisprimary AND i.indrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
            ORDER BY i.indrelid, k.n
            """).mapValues { rows in rows.compactMap { $0[0].textValue } }
        let columns = try reader.grouped("""
            SELECT a.attrelid::bigint, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attgenerated::text
            FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema)) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attrelid, a.attnum
            """)
        // Indexes on expressions or with a WHERE are left out (SQLite could not keep them either).
        let indexes = try reader.grouped("""
            SELECT i.indrelid::bigint, ic.relname, i.indisunique,
                   array_to_string(array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                       JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31))
            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
            WHERE i.indrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE \(inSchema))
              AND i.indexprs IS NULL AND i.indpred IS NULL
            ORDER BY i.indrelid, ic.relname
            """)
        var entities: [EntityDescription] = []
        for row in try reader.rows("SELECT c.oid::bigint, c.relname, c.relkind::text FROM pg_catalog.pg_class c WHERE c.\(inSchema) ORDER BY c.oid") {
            guard case .integer(let oid) = row[0], case .text(let name) = row[1], case .text(let kind) = row[2] else { continue }
            let key = keys[oid] ?? []
            let attributes = (columns[oid] ?? []).compactMap { column -> AttributeDescription? in
                guard case .text(let columnName) = column[0] else { return nil }
                return AttributeDescription(name: columnName, declaredType: column[1].textValue ?? "",
                                            isNullable: column[2] != .integer(1), defaultValue: column[3].textValue,
                                            primaryKeyPosition: key.firstIndex(of: columnName).map { $0 + 1 },
                                            generated: column[4] == .text("s") ? .stored : nil)
            }
            let described = (indexes[oid] ?? []).compactMap { index -> IndexDescription? in
                guard case .text(let indexName) = index[0], case .text(let names) = index[2] else { return nil }
                return IndexDescription(name: indexName, columns: names.split(separator: "\u{1F}").map(String.init),
                                        isUnique: index[1] == .integer(1))
            }
            let isView = kind == "v" || kind == "m"
            entities.append(EntityDescription(name: name, kind: isView ? .view : .table, attributes: attributes,
                                              primaryKey: key, hasRowid: false, relationships: [], indexes: described))
        }
        return Schema(entities: entities).addingRelationships(try reader.foreignKeys())
    }

    /// A value that changes whenever the current schema's tables, views, columns, indexes or
    /// constraints do (each catalog row's id and the transaction that last wrote it), and not
    /// when rows are written or statistics gathered (those update the catalog in place); also,
    /// needlessly, after a TRUNCATE, VACUUM FULL, CLUSTER or GRANT, which rewrite catalog rows.
    /// Cheap: one query on the catalog, for callers that keep what they derived from the schema.
    public func fingerprint(of connection: PostgresConnection) throws -> String {
        let statement = try connection.prepare("""
            SELECT md5(
              coalesce((SELECT string_agg(c.oid || '.' || c.xmin, ',' ORDER BY c.oid) FROM pg_catalog.pg_class c
                        WHERE c.relnamespace = current_schema()::regnamespace), '') || '/' ||
              coalesce((SELECT string_agg(a.attrelid || '.' || a.attnum || '.' || a.xmin, ',' ORDER BY a.attrelid, a.attnum)
                        FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                        WHERE c.relnamespace = current_schema()::regnamespace), '') || '/' ||
              coalesce((SELECT string_agg(o.oid || '.' || o.xmin, ',' ORDER BY o.oid) FROM pg_catalog.pg_constraint o
                        WHERE o.connamespace = current_schema()::regnamespace), ''))
            """)
        defer { statement.reset() }
        try statement.bind([])
        guard try statement.step(), case .text(let fingerprint) = statement.value(at: 0) else {
            throw PortalError(.sqlite, "PostgreSQL gave no schema fingerprint")
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

        /// Every foreign key of the schema's tables, columns in key order.
        func foreignKeys() throws -> [ForeignKey] {
            try rows("""
                SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
                       array_to_string(array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                           JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31)),
                       array_to_string(array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
                           JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31))
                FROM pg_catalog.pg_constraint c
                WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace ORDER BY c.conrelid, c.oid
                """).compactMap { row in
                guard case .text(let from) = row[0], case .text(let to) = row[1], case .text(let fromColumns) = row[2],
                      case .text(let toColumns) = row[3] else { return nil }
                return ForeignKey(from: Self.unquoted(from), to: Self.unquoted(to),
                                  fromColumns: fromColumns.split(separator: "\u{1F}").map(String.init),
                                  toColumns: toColumns.split(separator: "\u{1F}").map(String.init))
            }
        }

        /// `regclass` text quotes names that need it (`"Track"`).
        static func unquoted(_ name: String) -> String {
            guard name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 else { return name }
            var inner = ""
            var previousWasQuote = false
            for character in name.dropFirst().dropLast() {
                // `""` inside stands for one quote.
                if character == "\"" && previousWasQuote { previousWasQuote = false; continue }
                previousWasQuote = character == "\""
                inner.append(character)
            }
            return inner
        }
    }
}
