import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPredicate
@testable import PortalPostgres

/// A table as `--copy-to` plans it for PostgreSQL, from SQLite's schema: the INTEGER PRIMARY KEY
/// as the identity, the UNIQUEs SQLite keeps as autoindexes (not the key's), and each column
/// whose values do not all fit its type, with the first such row.
@Suite struct CopyTablePlanTests {
    @Test func identityUniquesAndMixedColumns() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try Store(path: path)
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT UNIQUE, r REAL, ok BOOLEAN, t TEXT, b BLOB, UNIQUE (r, ok));
                INSERT INTO t VALUES (1, 'a', 1.5, 1, 'x', x'00'), (2, 'b', 'many', 2, x'01', 'text'), (3, 'c', 2, 0, 'y', NULL);
                CREATE TABLE k (name TEXT PRIMARY KEY, n INTEGER);
                """)
        }
        let schema = try store.read { ctx in try ctx.schema }
        guard let table = schema.entities.first(where: { $0.name == "t" }), let keyed = schema.entities.first(where: { $0.name == "k" }) else {
            Issue.record("no tables")
            return
        }
        var plan = CopyTablePlan(table)
        #expect(plan.identity == "id")
        #expect(Set(plan.uniques.map { $0.joined(separator: ",") }) == ["code", "r,ok"])
        #expect(plan.types == ["bigint", "text", "double precision", "boolean", "text", "bytea"])
        try store.read { ctx in try plan.findMixedColumns(ctx) }
        #expect(plan.mixed.map { "\($0.column) \($0.holds) \($0.row)" } == ["r text id 2", "ok integer id 2", "t blob id 2", "b text id 2"])
        // A TEXT key is no identity, and its autoindex is the key's, no UNIQUE of its own.
        let other = CopyTablePlan(keyed)
        #expect(other.identity == nil)
        #expect(other.uniques.isEmpty)
        try store.close()
    }
}
