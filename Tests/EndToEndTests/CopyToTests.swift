import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// `--copy-to`: Chinook and a database of awkward values into PostgreSQL (the test server `make
/// test` starts), back into SQLite, and into a new SQLite file, each value compared with the
/// source; a target that already has the tables, a server that cannot be reached, and values
/// PostgreSQL's types cannot take.
// Serialized: the interrupt tests time their signals against copies of 1.5M rows, which
// other copies running beside them would slow down unpredictably.
@Suite(.serialized) struct CopyToTests {
    /// A new empty PostgreSQL database on the test server and its URL; fails without a server.
    final class TargetDatabase {
        let name = "copy_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let url: String

        init() throws {
            guard let host = ProcessInfo.processInfo.environment["PGHOST"] else {
                throw PortalError(.cannotOpen, "no PostgreSQL server: PGHOST is not set (make test starts one)")
            }
            try PostgresConnection("dbname=postgres").execute("CREATE DATABASE \(name)")
            url = "postgresql:///\(name)?host=\(host)"
        }

        deinit { try? PostgresConnection("dbname=postgres").execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

        func rows(_ sql: String) throws -> [[Value]] {
            let connection = try PostgresConnection("dbname=\(name)")
            let statement = try connection.prepare(sql)
            var rows: [[Value]] = []
            while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value(at: Int32($0)) }) }
            return rows
        }
    }

    func sqliteRows(_ path: String, _ sql: String) throws -> [[Value]] {
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        let store = try Store(path: path, options: options)
        return try store.read { ctx in try ctx.query(sql).rows.map(\.values) }
    }

    @Test func chinookIntoPostgreSQLWithKeysIndexesAndEveryRow() throws {
        let target = try TargetDatabase()
        let run = try Shell.run([Shell.chinook, "--copy-to", target.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        let summary = run.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(summary.count == 11)
        for line in summary {
            let count = try target.rows("SELECT count(*) FROM \"\(line[0])\"")
            #expect(count == [[.integer(Int64(line[1]) ?? -1)]], "\(line[0])")
            #expect(try sqliteRows(Shell.chinook, "SELECT count(*) FROM \"\(line[0])\"") == count)
        }
        let tracks = "SELECT \"TrackId\", \"Name\", \"Composer\", \"Milliseconds\" FROM \"Track\" ORDER BY \"TrackId\""
        #expect(try target.rows(tracks) == sqliteRows(Shell.chinook, tracks))
        let keys = try target.rows("""
            SELECT count(*) FILTER (WHERE contype = 'p'), count(*) FILTER (WHERE contype = 'f' AND convalidated)
            FROM pg_constraint WHERE connamespace = 'public'::regnamespace
            """)
        #expect(keys == [[.integer(11), .integer(11)]])
        let indexes = try target.rows("SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE 'IFK_%'")
        #expect(indexes == [[.integer(11)]])
        let again = try Shell.run([Shell.chinook, "--copy-to", target.url])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already has a table"))
    }

    @Test func awkwardValuesArriveIntact() throws {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("odd.sqlite").path
        let store = try Store(path: path)
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Odd (id INTEGER PRIMARY KEY, t TEXT, r REAL, b BLOB, n NUMERIC, ok BOOLEAN)")
            let values: [[Value]] = [
                [1, "tab\tnew\nline\r\\back \\N", .real(-0.5), .blob([0, 9, 10, 92, 255]), .real(12.25), 1],
                [2, "日本 🙂 e\u{301}", .real(1e300), .blob([]), 7, 0],
                [3, .null, .null, .null, .null, .null],
            ]
            for row in values { try ctx.insert("Odd", columns: ["id", "t", "r", "b", "n", "ok"], values: row) }
            // What PostgreSQL cannot take as it is: left out with a note, the rest copied.
            try ctx.execute("CREATE INDEX odd_lower ON Odd (lower(t)); CREATE UNIQUE INDEX odd_some ON Odd (n) WHERE n > 10;"
                + "CREATE TABLE Ref (id INTEGER PRIMARY KEY, t TEXT REFERENCES Odd (t));"
                + "CREATE TABLE Checked (id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 0), t TEXT CHECK (typeof(t) = 'text'));"
                + "CREATE VIEW kinds AS SELECT typeof(t) AS kind FROM Odd; CREATE VIEW positive AS SELECT id FROM Checked WHERE n > 0")
        }
        try store.close()
        let target = try TargetDatabase()
        let run = try Shell.run([path, "--copy-to", target.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Odd\t3\nRef\t0\nChecked\t0\n")
        // The CHECK PostgreSQL reads is kept; the other is named.
        #expect(run.stderr.contains("note: Checked: CHECK (typeof(t) = 'text') was not copied: function typeof(text) does not exist\n"))
        #expect(run.stderr.contains("note: the view kinds was not copied: its SQL is SQLite's (function typeof(text) does not exist)\n"))
        #expect(try target.rows("SELECT viewname FROM pg_views WHERE schemaname = 'public'") == [["positive"]])
        #expect(try target.rows("SELECT conrelid::regclass::text, pg_get_constraintdef(oid) LIKE 'CHECK (%n > 0%)' FROM pg_constraint "
                                + "WHERE contype = 'c' AND connamespace = 'public'::regnamespace") == [["\"Checked\"", 1]])
        #expect(run.stderr.contains("note: Odd: the index odd_lower is on an expression or has a WHERE: not copied"))
        #expect(run.stderr.contains("note: Odd: the index odd_some is on an expression or has a WHERE: not copied"))
        #expect(run.stderr.contains("note: Ref: the foreign key tRef (t) was left out: there is no unique constraint"))
        let copied = try target.rows("SELECT id, t, r, b, n::float8, ok FROM \"Odd\" ORDER BY id")
        #expect(copied == [
            [1, "tab\tnew\nline\r\\back \\N", .real(-0.5), .blob([0, 9, 10, 92, 255]), .real(12.25), 1],
            [2, "日本 🙂 e\u{301}", .real(1e300), .blob([]), .real(7), 0],
            [3, .null, .null, .null, .null, .null],
        ])
    }

    /// Text in an INTEGER column: found before anything is written, the column and the first
    /// such row named; then copied as text, or its table left out, as `--mixed-columns` says.
    @Test func aColumnOfMixedTypesIsFoundBeforeAnythingIsWritten() throws {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("mixed.sqlite").path
        let store = try Store(path: path)
        try store.write { ctx in
            try ctx.execute("CREATE TABLE A (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO A VALUES (1, 'fine');"
                + "CREATE TABLE B (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO B VALUES (1, 5), (2, 'not a number'), (3, 'x')")
        }
        try store.close()
        let target = try TargetDatabase()
        let run = try Shell.run([path, "--copy-to", target.url])
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == "error: B: the column n holds text values (first in the row id 2) that its type bigint cannot take:"
            + " nothing was copied; --mixed-columns text copies such columns as text, --mixed-columns skip leaves their tables out\n")
        #expect(try tables(target) == [])

        let widened = try Shell.run([path, "--copy-to", target.url, "--mixed-columns", "text"])
        #expect(widened.status == 0, "\(widened.stderr)")
        #expect(widened.stdout == "A\t1\nB\t3\n")
        #expect(widened.stderr == "note: B: the column n holds text values (first in the row id 2) that its type bigint cannot take: copied as text\n")
        #expect(try target.rows("SELECT n, pg_typeof(n)::text FROM \"B\" ORDER BY id") == [["5", "text"], ["not a number", "text"], ["x", "text"]])

        let other = try TargetDatabase()
        let skipped = try Shell.run([path, "--copy-to", other.url, "--mixed-columns", "skip"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stdout == "A\t1\n")
        #expect(skipped.stderr.hasSuffix("cannot take: the table was not copied\n"))
        #expect(try tables(other) == [["A"]])

        let alone = try Shell.run([path, "--mixed-columns", "text", "-e", "count A"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("--mixed-columns goes with --copy-to"))
        let intoFile = try Shell.run([path, "--copy-to", path + ".copy", "--mixed-columns", "skip"])
        #expect(intoFile.status == 2)
        #expect(intoFile.stderr == "error: --mixed-columns goes with --copy-to a PostgreSQL URL (SQLite takes every value as it is)\n")
        #expect(!FileManager.default.fileExists(atPath: path + ".copy"))
    }

    @Test func andBackFromPostgreSQLIntoANewSQLiteFile() throws {
        let target = try TargetDatabase()
        #expect(try Shell.run([Shell.chinook, "--copy-to", target.url]).status == 0)
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("back.sqlite").path
        let back = try Shell.run([target.url, "--copy-to", path])
        #expect(back.status == 0, "\(back.stderr)")
        let tables = back.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(tables.count == 11)
        for table in tables {
            let sql = "SELECT * FROM \"\(table)\" ORDER BY 1, 2"
            let original = try sqliteRows(Shell.chinook, sql)
            #expect(try sqliteRows(path, sql) == original, "\(table)")
            #expect(!original.isEmpty)
        }
        #expect(try sqliteRows(path, "PRAGMA integrity_check") == [["ok"]])
        #expect(try sqliteRows(path, "SELECT count(*) FROM pragma_foreign_key_list('Track')") == [[.integer(3)]])
        #expect(try sqliteRows(path, "SELECT count(*) FROM pragma_index_list('Track') WHERE name LIKE 'IFK_%'") == [[.integer(3)]])
        // Without --copy-to, the URL opens as a database of its own.
        let alone = try Shell.run([target.url, "-e", "count Track"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout == "3503\n")
    }

    @Test func anUnreachableServerIsStatusThree() throws {
        let run = try Shell.run([Shell.chinook, "--copy-to", "postgresql://nobody@/nowhere?host=/nonexistent-socket-dir"])
        #expect(run.status == 3)
        #expect(run.stderr.hasPrefix("error: cannot connect to PostgreSQL: "))
        #expect(run.stdout == "")
    }

    @Test func intoANewSQLiteFile() throws {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("copy.sqlite").path
        let run = try Shell.run([Shell.chinook, "--copy-to", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Track\t3503\n"))
        #expect(try sqliteRows(path, "PRAGMA integrity_check") == [["ok"]])
        let tracks = "SELECT * FROM Track ORDER BY TrackId"
        #expect(try sqliteRows(path, tracks) == sqliteRows(Shell.chinook, tracks))
        let again = try Shell.run([Shell.chinook, "--copy-to", path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists"))
    }

    // MARK: Interrupts and bad input

    /// A database of a small table and a large one (copied in that order), made by sqlite3.
    func smallAndLarge(rows: Int) throws -> String {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("large.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [path, """
            CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO a VALUES (1, 'one'), (2, 'two');
            CREATE TABLE big (id INTEGER PRIMARY KEY, t TEXT, n REAL);
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
            INSERT INTO big SELECT i, 'row ' || i || ' of a large table', i * 0.5 FROM s;
            """])
        return path
    }

    /// The tables the target holds.
    func tables(_ target: TargetDatabase) throws -> [[Value]] {
        try target.rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
    }

    /// Ctrl-C while the large table streams: status 130, the copy rolled back — neither the
    /// small table copied before nor the large one there at all.
    @Test func ctrlCRollsTheTableInFlightBackWithStatus130() throws {
        let path = try smallAndLarge(rows: 1_500_000)
        for delay in [0.4, 0.9] {
            let target = try TargetDatabase()
            let errors = path + ".stderr"
            let pid = try Spawn.start(Shell.binary, [path, "--copy-to", target.url], stdout: "/dev/null", stderr: errors)
            // Wait until the large table is on its way, then a moment more.
            let started = Date()
            while try target.rows("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY \"big\"%'") == [[.integer(0)]],
                  Date().timeIntervalSince(started) < 30 { usleep(20_000) }
            usleep(useconds_t(delay * 100_000))
            kill(pid, SIGINT)
            let status = Spawn.wait(pid)
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(status == 130, "\(stderr)")
            #expect(stderr.contains("nothing was copied"), "\(stderr)")
            #expect(try tables(target) == [])
        }
    }

    /// Ctrl-C during a copy into a new SQLite file (sent once the new file has started to
    /// grow): status 130 and no file, or (when the copy ended first) status 0 and the whole copy;
    /// at least once the former.
    @Test func ctrlCDuringACopyIntoANewSQLiteFileLeavesNoFile() throws {
        let path = try smallAndLarge(rows: 1_500_000)
        var interrupted = 0
        for run in 0..<3 {
            let copy = path + ".copy\(run)"
            let errors = path + ".stderr"
            let pid = try Spawn.start(Shell.binary, [path, "--copy-to", copy], stdout: "/dev/null", stderr: errors)
            let started = Date()
            func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: copy))?[.size] as? Int) ?? 0 }
            while size() < 1 << 20, Date().timeIntervalSince(started) < 30 { usleep(5_000) }
            kill(pid, SIGINT)
            let status = Spawn.wait(pid)
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            if status == 130 {
                interrupted += 1
                #expect(stderr.contains("the new file was removed"), "\(stderr)")
                #expect(!FileManager.default.fileExists(atPath: copy), "\(stderr)")
            } else {
                #expect(status == 0, "\(stderr)")
                #expect(try sqliteRows(copy, "SELECT count(*) FROM big") == [[.integer(1_500_000)]])
            }
        }
        #expect(interrupted > 0)
    }

    /// The server ends the copying connection (an administrator, a restart): status 3, as for a
    /// server that cannot be reached; or cancels its statement: status 1, a statement that
    /// failed (130 is for the signals alone). Each with the server's reason, the table named,
    /// and no table there.
    /// The server's word that it ends the session (57P01) or libpq's that it has gone, whichever
    /// comes first: both a lost server.
    @Test(arguments: [("pg_terminate_backend", Int32(3), ["server closed the connection unexpectedly This probably means",
                                                          "terminating connection due to administrator command"]),
                      ("pg_cancel_backend", Int32(1), ["canceling statement"])])
    func theServerEndingTheCopyLeavesNoHalfTable(function: String, status expected: Int32, reasons: [String]) throws {
        let path = try smallAndLarge(rows: 1_500_000)
        let target = try TargetDatabase()
        let errors = path + ".stderr"
        let pid = try Spawn.start(Shell.binary, [path, "--copy-to", target.url], stdout: "/dev/null", stderr: errors)
        let started = Date()
        var ended: [[Value]] = []
        while ended != [[.integer(1)]], Date().timeIntervalSince(started) < 30 {
            ended = try target.rows("SELECT count(\(function)(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY \"big\"%'")
            usleep(20_000)
        }
        let status = Spawn.wait(pid)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(ended == [[.integer(1)]])
        #expect(status == expected, "\(stderr)")
        #expect(stderr.hasPrefix("error: cannot copy big") && reasons.contains(where: stderr.contains), "\(stderr)")
        #expect(try tables(target) == [])
    }

    /// A database that is not there, a wrong password (the test server asks `portal_password`
    /// for one), a table the role may not read, a role that may not create tables: each a clear
    /// error and its status; nothing written.
    @Test func missingDatabaseWrongPasswordAndNoPermission() throws {
        guard let host = ProcessInfo.processInfo.environment["PGHOST"] else {
            throw PortalError(.cannotOpen, "no PostgreSQL server: PGHOST is not set (make test starts one)")
        }
        let missing = try Shell.run([Shell.chinook, "--copy-to", "postgresql:///no_such_database_here?host=\(host)"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("cannot connect to PostgreSQL") && missing.stderr.contains("no_such_database_here"))

        let admin = try PostgresConnection("dbname=postgres")
        try admin.execute("DROP ROLE IF EXISTS portal_password; CREATE ROLE portal_password LOGIN PASSWORD 'right'")
        let target = try TargetDatabase()
        let wrong = try Shell.run([Shell.chinook, "--copy-to", "postgresql://portal_password:wrong@/\(target.name)?host=\(host)"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("password authentication failed"), "\(wrong.stderr)")
        #expect(wrong.stdout == "")

        // A table the role may not read: the copy into a new SQLite file fails and leaves no file.
        let (folder, _) = try Shell.chinookCopy()
        let back = folder.appendingPathComponent("back.sqlite").path
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE TABLE a (id bigint PRIMARY KEY); INSERT INTO a VALUES (1); GRANT SELECT ON a TO portal_password;
            CREATE TABLE b (id bigint PRIMARY KEY); INSERT INTO b VALUES (1)
            """)
        let unreadable = try Shell.run(["postgresql://portal_password:right@/\(target.name)?host=\(host)", "--copy-to", back])
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("permission denied for table b"), "\(unreadable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: back))
        try PostgresConnection("dbname=\(target.name)").execute("DROP TABLE a, b")

        // PostgreSQL 15 lets only the owner create in the public schema.
        let refused = try Shell.run([Shell.chinook, "--copy-to", "postgresql://portal_password:right@/\(target.name)?host=\(host)"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("permission denied"), "\(refused.stderr)")
        #expect(try tables(target) == [])
        try admin.execute("DROP OWNED BY portal_password; DROP ROLE portal_password")
    }
}
