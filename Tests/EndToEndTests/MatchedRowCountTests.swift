import DifferentialSupport
import Foundation
import Testing

/// A write reports the rows the command matched — not the rows that its triggers or foreign-key
/// cascades changed besides — and asks first only when more than one row matched.
@Suite struct MatchedRowCountTests {
    let folder: URL
    let database: String

    /// A parent with cascading children, and a table whose AFTER triggers log every change.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = folder.appendingPathComponent("counts.sqlite").path
        _ = try Spawn.run("/usr/bin/env", ["sqlite3", database, """
            PRAGMA foreign_keys = ON;
            CREATE TABLE extent (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE usage (id INTEGER PRIMARY KEY, extentId INTEGER REFERENCES extent(id) ON DELETE CASCADE);
            INSERT INTO extent VALUES (1, 'world'), (2, 'europe');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 878)
                INSERT INTO usage (extentId) SELECT 1 FROM n;
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
            CREATE TABLE log (what TEXT);
            CREATE TRIGGER t_updated AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ('u ' || new.id); END;
            CREATE TRIGGER t_deleted AFTER DELETE ON t BEGIN INSERT INTO log VALUES ('d ' || old.id); END;
            INSERT INTO t VALUES (1, 'a'), (2, 'b');
            """])
    }

    @Test func aDeleteCountsTheRowsItMatchedNotItsCascades() throws {
        let r = try Shell.run([database, "-e", "delete extent where name == 'world'"])
        #expect(r.status == 0)
        #expect(r.stderr == "deleted 1 extent\n")
        #expect(try Shell.run([database, "-e", "count usage"]).stdout == "0\n")   // the cascade still ran
    }

    @Test func writesCountTheRowsTheyMatchedNotTheirTriggersRows() throws {
        let updated = try Shell.run([database, "-e", "update t set v = 'x' where id == 1"])
        #expect(updated.stderr == "updated 1 t\n")
        let deleted = try Shell.run([database, "-e", "delete t where id == 2"])
        #expect(deleted.stderr == "deleted 1 t\n")
        #expect(try Shell.run([database, "--format", "csv", "--no-header", "-e", "find log"]).stdout == "u 1\nd 2\n")
    }
}
