import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// The shell and the browser on a PostgreSQL URL: Chinook copied up with `--copy-to`, the same
/// commands run on the server and on the SQLite file with the same output; writes, raw SQL and
/// the browser on the server; and what goes wrong with a server (missing database, refused
/// table, a cancelled statement, the connection dropped mid-statement and between pages, by
/// `pg_terminate_backend`: a restart of the shared test server would break the suites running
/// beside these).
@Suite(.serialized) struct PostgresShellTests {
    /// Chinook on the test server, in a database of its own.
    private func chinookOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        let copy = try Shell.run([Shell.chinook, "--copy-to", target.url])
        #expect(copy.status == 0, "\(copy.stderr)")
        return target
    }

    @Test func readCommandsPrintWhatTheyPrintOnTheSQLiteFile() throws {
        let target = try chinookOnServer()
        let commands = [
            "count Track where Milliseconds > 300000",
            "find Artist where Name BEGINSWITH[c] 'ac' sort by ArtistId",
            "find Track select Name, Album.Title as album where Album.Artist.Name == 'Queen' sort by Name limit 5",
            "count Track group by MediaTypeId",
            "find Track select GenreId, count(), max(Milliseconds) where Milliseconds > 200000 group by GenreId sort by GenreId",
            "first Album where tracks.@count > 20 sort by Title",
            "get Customer 7",
            "find Invoice where Total > 20 sort by InvoiceId desc limit 3",
            // NULL first in ascending order, last in descending, on both.
            "find Customer select CustomerId, Company sort by Company, CustomerId limit 3",
            "find Customer select CustomerId, Company sort by Company desc, CustomerId limit 3 offset 8",
            "entities",
            "export Album select Title, Artist.Name where Artist.Name BEGINSWITH 'AC' sort by Title to - as json",
        ]
        for command in commands {
            let onServer = try Shell.run([target.url, "-e", command])
            let onFile = try Shell.run([Shell.chinook, "-r", "-e", command])
            #expect(onServer.status == 0, "\(command): \(onServer.stderr)")
            #expect(onServer.stdout == onFile.stdout, "\(command)")
            #expect(!onServer.stdout.isEmpty, "\(command)")
        }
        // explain shows the server's own plan.
        let explain = try Shell.run([target.url, "-e", "mode line", "-e", "explain find Track where Milliseconds > 1000000"])
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.stdout.contains("$1") && explain.stdout.contains("Scan"), "\(explain.stdout)")
    }

    @Test func writesAndRawSQLGoThroughTheServer() throws {
        let target = try chinookOnServer()
        let run = try Shell.run([target.url,
                                 "-e", "create Genre set GenreId = 100, Name = 'Krautrock'",
                                 "-e", "update Genre set Name = 'Kosmische' where GenreId == 100",
                                 "-e", "begin", "-e", "delete Genre where GenreId == 100", "-e", "rollback",
                                 "-e", "sql INSERT INTO \"MediaType\" VALUES (6, 'Tape')",
                                 "-e", "sql SELECT \"Name\" FROM \"MediaType\" WHERE \"MediaTypeId\" > 5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Tape"))
        #expect(try target.rows("SELECT \"Name\" FROM \"Genre\" WHERE \"GenreId\" = 100") == [[.text("Kosmische")]])
        // A constraint the server enforces: a clear error, nothing written, status 1.
        let refused = try Shell.run([target.url, "-e", "create Album set AlbumId = 9999, Title = 'x', ArtistId = 123456"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: Album: FOREIGN KEY constraint failed: "), "\(refused.stderr)")
        #expect(try target.rows("SELECT count(*) FROM \"Album\" WHERE \"AlbumId\" = 9999") == [[.integer(0)]])
    }

    /// Raw SQL reaches the server as typed: jsonb's `?` and `?|`, a dollar-quoted string and a
    /// comment holding `?` stay text beside a named parameter; an engine query's own parameters
    /// (an IN list, a limit's offset) are numbered where they were bound.
    @Test func rawSQLKeepsItsQuestionMarksAndEngineQueriesNumberTheirOwn() throws {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute(
            #"CREATE TABLE doc (id int PRIMARY KEY, body jsonb); INSERT INTO doc VALUES (1, '{"a": 1, "x": 2}'), (2, '{"b": 1}')"#)
        let run = try Shell.run([target.url, "-e", "let $n = 0",
                                 "-e", "sql SELECT id, $$it's ?$$ AS note FROM doc WHERE body ? 'a' AND body ?| array['x'] "
                                     + "AND id > $n -- a ? in a comment",
                                 "-e", "find doc where id IN {1, 2} sort by id desc limit 1 offset 1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "id\tnote\n1\tit's ?\nid\tbody\n1\t{\"a\": 1, \"x\": 2}\n", "\(run.stdout)")
    }

    /// A constraint the server enforces is named by its SQLSTATE as SQLite's are (the server's
    /// detail below it), points at the attribute it concerns, and fails the command (status 1);
    /// raw SQL's too.
    @Test func constraintViolationsAreNamedByTheirSQLState() throws {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute(
            "CREATE TABLE u (id int PRIMARY KEY, name text UNIQUE, n int CHECK (n > 0), m int NOT NULL DEFAULT 0); "
                + "INSERT INTO u VALUES (1, 'a', 1, 0)")
        let cases: [(command: String, stderr: String)] = [
            ("create u set id = 2, name = 'a', n = 1",
             "error: u: UNIQUE constraint failed: u_name_key; nothing was written\ndetail: Key (name)=(a) already exists.\n"),
            ("create u set id = 3, name = 'b', n = 0",
             "error: u: CHECK constraint failed: u_n_check; nothing was written\ndetail: Failing row contains (3, b, 0, 0).\n"),
            ("create u set id = 3, name = 'b', n = 2, m = nil",
             "error: u: NOT NULL constraint failed: u.m; nothing was written\ndetail: Failing row contains (3, b, 2, null).\n"
                + "  create u set id = 3, name = 'b', n = 2, m = nil\n                                          ^\n"),
            ("sql INSERT INTO u VALUES (4, 'a', 1)",
             "error: UNIQUE constraint failed: u_name_key\ndetail: Key (name)=(a) already exists.\n"),
        ]
        for (command, stderr) in cases {
            let run = try Shell.run([target.url, "-e", command])
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr == stderr, "\(command): \(run.stderr)")
        }
        #expect(try target.rows("SELECT count(*) FROM u") == [[.integer(1)]])
    }

    @Test func aMissingDatabaseOrServerAndARefusedTableAreClearErrors() throws {
        let host = try #require(ProcessInfo.processInfo.environment["PGHOST"])
        let missing = try Shell.run(["postgresql:///no_such_database_here?host=\(host)", "-e", "entities"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")
        let down = try Shell.run(["postgresql://nobody:secret@127.0.0.1:1/none", "-e", "entities"])
        #expect(down.status == 3)
        #expect(down.stderr.contains("cannot connect to PostgreSQL"), "\(down.stderr)")
        #expect(!down.stderr.contains("secret"), "the password is not shown: \(down.stderr)")

        let target = try chinookOnServer()
        let admin = try PostgresConnection("dbname=\(target.name)")
        try admin.execute("""
            DROP ROLE IF EXISTS portal_reader_\(target.name); CREATE ROLE portal_reader_\(target.name) LOGIN;
            GRANT SELECT ON "Artist" TO portal_reader_\(target.name);
            """)
        defer { try? admin.execute("DROP OWNED BY portal_reader_\(target.name); DROP ROLE portal_reader_\(target.name)") }
        let url = "postgresql://portal_reader_\(target.name)@/\(target.name)?host=\(host)"
        let allowed = try Shell.run([url, "-e", "count Artist"])
        #expect(allowed.stdout == "275\n", "\(allowed.stderr)")
        let denied = try Shell.run([url, "-e", "count Album"])
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("permission denied"), "\(denied.stderr)")
    }

    @Test func aStatementIsCancelledByCtrlCAndADroppedConnectionIsAnError() throws {
        let target = try chinookOnServer()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cancel-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let pid = try Spawn.start(Shell.binary, [target.url, "-e", "sql SELECT pg_sleep(30)"], stdout: out, stderr: out)
        try waitForQuery("pg_sleep", in: target)
        kill(pid, SIGINT)
        #expect(Spawn.wait(pid) == 130)

        // The server ends the session's connections while a statement runs.
        let dropped = try Spawn.start(Shell.binary, [target.url, "-e", "sql SELECT pg_sleep(30)"], stdout: out, stderr: out)
        try waitForQuery("pg_sleep", in: target)
        _ = try target.rows("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(30)%'
              AND pid <> pg_backend_pid()
            """)
        #expect(Spawn.wait(dropped) == 1)
        let said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(said.contains("terminating connection"), "\(said)")
    }

    /// Waits (at most 10 s) until the server runs a statement containing `text`.
    private func waitForQuery(_ text: String, in target: CopyToTests.TargetDatabase) throws {
        for _ in 0..<200 {
            let running = try target.rows("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND state = 'active' AND query LIKE '%\(text)%'
                  AND pid <> pg_backend_pid()
                """)
            if running != [[.integer(0)]] { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the server never ran \(text)")
    }

    /// `notify on` gives every table a trigger that notifies its changes, and the browser then
    /// refreshes by the notification; `notify off` takes them away; a file has no use for it.
    @Test func notifyOnMakesTheBrowserRefreshByNotification() throws {
        let target = try chinookOnServer()
        let triggers = "SELECT count(*) FROM pg_trigger WHERE tgname = 'portal_notify_change'"
        let on = try Shell.run([target.url, "-e", "notify on"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect((on.stdout + on.stderr).contains("ok (11 tables given a trigger that notifies its changes)"), "\(on.stdout)\(on.stderr)")
        #expect(try target.rows(triggers) == [[.integer(11)]])

        let s = try BrowserSession(copyChinook: false)
        s.database = target.url
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        _ = try target.rows("INSERT INTO \"Genre\" VALUES (26, 'Krautrock')")
        try s.waitFor("Genre  26 rows")
        try s.type("G")
        try s.waitFor("Krautrock")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")

        let off = try Shell.run([target.url, "-e", "notify off"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect((off.stdout + off.stderr).contains("ok (11 tables no longer notify)"), "\(off.stdout)\(off.stderr)")
        #expect(try target.rows(triggers) == [[.integer(0)]])

        let onFile = try Shell.run([Shell.chinook, "-r", "-e", "notify on"])
        #expect(onFile.status == 1)
        #expect(onFile.stderr.contains("notify is for PostgreSQL"), "\(onFile.stderr)")
    }

    @Test func theBrowserPagesFiltersAndEditsOnTheServer() throws {
        let target = try chinookOnServer()
        let s = try BrowserSession(copyChinook: false)
        s.database = target.url
        try s.start(["--entity", "Track"])
        try s.waitFor("Track  3503 rows")
        try s.waitFor("For Those About To Rock")
        // The server drops the browser's connections (waiting for them to end): the next page
        // connects again.
        _ = try target.rows("""
            SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        try s.type("G")
        try s.waitFor("Koyaanisqatsi")
        try s.type("g")
        try s.waitFor("For Those About To Rock")
        try s.type("/Composer BEGINSWITH[c] \"ang\"")
        try s.press("Enter")
        try s.waitFor("Track  10 rows")
        // Another session's commit shows without a key pressed (the server's marker, polled).
        _ = try target.rows("""
            INSERT INTO "Track" ("TrackId", "Name", "MediaTypeId", "Composer", "Milliseconds", "UnitPrice")
            VALUES (9001, 'Angel Zero', 1, 'Angela Outside', 1000, 0.99)
            """)
        try s.waitFor("Track  11 rows")
        try s.waitFor("Angel Zero")
        // The first row is track 1: its name, edited in place.
        try s.editCell(moving: "l", to: "Rock Salute", saying: "updated Track.Name")
        #expect(try target.rows("SELECT \"Name\" FROM \"Track\" WHERE \"TrackId\" = 1") == [[.text("Rock Salute")]])
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}
