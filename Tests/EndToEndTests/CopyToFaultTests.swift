import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres
import DifferentialSupport
#if canImport(Glibc)
import Glibc
#endif

/// `--copy-to` under faults, with real signals and a real server stopping: whatever the moment,
/// the copy is all or nothing, and its status and message say which.
extension CopyToTests {
    /// A database whose large table has a foreign key to a small one: the key's validation takes
    /// long enough to be caught in the act.
    func largeWithForeignKey(rows: Int) throws -> String {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("keyed.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [path, """
            CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO a VALUES (1, 'one'), (2, 'two');
            CREATE TABLE big (id INTEGER PRIMARY KEY, a INTEGER REFERENCES a (id), t TEXT);
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
            INSERT INTO big SELECT i, 1 + i % 2, 'row ' || i FROM s;
            """])
        return path
    }

    /// Waits (up to 60 s) until the copy's session runs a statement like `pattern`; true when it did.
    func waitForStatement(_ target: TargetDatabase, like pattern: String) throws -> Bool {
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            let running = try target.rows("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                          + "AND state = 'active' AND query LIKE '\(pattern)'")
            if running != [[.integer(0)]] { return true }
            usleep(5_000)
        }
        return false
    }

    /// SIGINT or SIGTERM while the foreign keys are added (the last phase): status 130 at once,
    /// and no table left on the server.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalWhileTheForeignKeysAreAddedUndoesTheWholeCopy(signal: Int32) throws {
        let path = try largeWithForeignKey(rows: 2_000_000)
        let target = try TargetDatabase()
        let errors = path + ".stderr"
        let pid = try Spawn.start(Shell.binary, [path, "--copy-to", target.url], stdout: path + ".stdout", stderr: errors)
        #expect(try waitForStatement(target, like: "ALTER TABLE \"big\" ADD CONSTRAINT%"))
        kill(pid, signal)
        let sent = Date()
        let status = Spawn.wait(pid)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(status == 130, "\(stderr)")
        #expect(Date().timeIntervalSince(sent) < 3)
        #expect(stderr.hasSuffix("; nothing was copied\n"), "\(stderr)")
        #expect(try String(contentsOfFile: path + ".stdout", encoding: .utf8) == "")
        #expect(try tables(target) == [])
    }

    /// The server shutting down while the foreign keys are added (a private server, restarted):
    /// status 3 with the server's reason, no summary, and after the restart no table there.
    @Test func theServerStoppingWhileTheForeignKeysAreAddedIsStatusThree() throws {
        let path = try largeWithForeignKey(rows: 2_000_000)
        let server = try PrivateServer()
        defer { server.stop() }
        try server.execute("CREATE DATABASE copied")
        let url = "postgresql://postgres@/copied?host=\(server.directory)"
        let errors = path + ".stderr"
        let pid = try Spawn.start(Shell.binary, [path, "--copy-to", url], stdout: path + ".stdout", stderr: errors)
        let started = Date()
        var seen = false
        while !seen, Date().timeIntervalSince(started) < 60 {
            seen = (try? server.rows("copied", "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                                     + "AND query LIKE 'ALTER TABLE \"big\" ADD CONSTRAINT%'")) == "1"
            usleep(5_000)
        }
        #expect(seen)
        try server.restart()
        let status = Spawn.wait(pid)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(status == 3, "\(stderr)")
        #expect(stderr.hasPrefix("error: ") && stderr.contains("terminating connection due to administrator command")
                || stderr.contains("server closed the connection"), "\(stderr)")
        #expect(try String(contentsOfFile: path + ".stdout", encoding: .utf8) == "")
        #expect(try server.rows("copied", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0")
    }

    /// SIGHUP (the terminal closed) while a new SQLite file is written, from SQLite and from
    /// PostgreSQL: status 130, and neither the file nor a journal left. SIGPIPE is ignored (a
    /// reader that went away must not kill the program half-way): the copy completes, whole.
    @Test func aHangUpDuringACopyIntoANewFileRemovesIt() throws {
        let path = try smallAndLarge(rows: 1_500_000)
        let target = try TargetDatabase()
        #expect(try Shell.run([path, "--copy-to", target.url]).status == 0)
        for source in [path, target.url] {
            var hungUp = 0
            for run in 0..<3 where hungUp == 0 {
                let copy = path + ".hup\(run)"
                let errors = path + ".stderr"
                let pid = try Spawn.start(Shell.binary, [source, "--copy-to", copy], stdout: "/dev/null", stderr: errors)
                let started = Date()
                // VACUUM INTO fills the file as it goes; the copy from PostgreSQL its write-ahead log.
                func size() -> Int {
                    ["", "-wal"].map { ((try? FileManager.default.attributesOfItem(atPath: copy + $0))?[.size] as? Int) ?? 0 }.reduce(0, +)
                }
                while size() < 1 << 20, Date().timeIntervalSince(started) < 30 { usleep(5_000) }
                kill(pid, SIGHUP)
                let status = Spawn.wait(pid)
                let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                if status == 130 {
                    hungUp += 1
                    #expect(stderr.hasSuffix("; the new file was removed\n"), "\(stderr)")
                    #expect(!FileManager.default.fileExists(atPath: copy))
                    for suffix in ["-journal", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: copy + suffix)) }
                } else {
                    #expect(status == 0, "\(stderr)")
                }
            }
            #expect(hungUp == 1, "\(source)")
        }
        let copy = path + ".pipe"
        let pid = try Spawn.start(Shell.binary, [path, "--copy-to", copy], stdout: "/dev/null")
        let started = Date()
        while ((try? FileManager.default.attributesOfItem(atPath: copy))?[.size] as? Int ?? 0) < 1 << 20,
              Date().timeIntervalSince(started) < 30 { usleep(5_000) }
        kill(pid, SIGPIPE)
        #expect(Spawn.wait(pid) == 0)
        #expect(try sqliteRows(copy, "SELECT count(*) FROM big") == [[.integer(1_500_000)]])
        #expect(!FileManager.default.fileExists(atPath: copy + "-journal"))
    }

    /// The server ending the session of a copy from it into a new SQLite file: status 3, the
    /// table named, no file left.
    @Test func theServerEndingACopyFromItLeavesNoFile() throws {
        let path = try smallAndLarge(rows: 1_500_000)
        let source = try TargetDatabase()
        #expect(try Shell.run([path, "--copy-to", source.url]).status == 0)
        let copy = path + ".from-server"
        let errors = path + ".stderr"
        let pid = try Spawn.start(Shell.binary, [source.url, "--copy-to", copy], stdout: path + ".stdout", stderr: errors)
        let started = Date()
        var ended: [[Value]] = []
        while ended != [[.integer(1)]], Date().timeIntervalSince(started) < 30 {
            ended = try source.rows("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    + "WHERE datname = current_database() AND query LIKE 'FETCH%' AND pid <> pg_backend_pid()")
            usleep(5_000)
        }
        let status = Spawn.wait(pid)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(ended == [[.integer(1)]])
        #expect(status == 3, "\(stderr)")
        #expect(stderr.hasPrefix("error: cannot copy "), "\(stderr)")
        #expect(try String(contentsOfFile: path + ".stdout", encoding: .utf8) == "")
        for suffix in ["", "-journal", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: copy + suffix)) }
    }

    /// A table whose name holds a terminal's escape (OSC: set the title) and a newline: the
    /// summary and the notes show it escaped, as everything else the program prints does.
    @Test func tableNamesArePrintedEscaped() throws {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("names.sqlite").path
        let store = try Store(path: path)
        try store.write { ctx in
            try ctx.execute("CREATE TABLE \"t\u{1B}]0;owned\u{07}\nx\" (id INTEGER PRIMARY KEY, n TEXT DEFAULT (lower('A')));"
                + "INSERT INTO \"t\u{1B}]0;owned\u{07}\nx\" (id) VALUES (1)")
        }
        try store.close()
        let target = try TargetDatabase()
        let run = try Shell.run([path, "--copy-to", target.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "t\\x1b]0;owned\\x07\\nx\t1\n")
        #expect(run.stderr == "note: t\\x1b]0;owned\\x07\\nx: the default of n (lower('A')) was not copied\n")
        let intoFile = try Shell.run([path, "--copy-to", path + ".copy"])
        #expect(intoFile.stdout == "t\\x1b]0;owned\\x07\\nx\t1\n")
        let back = try Shell.run([target.url, "--copy-to", path + ".back"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout == "t\\x1b]0;owned\\x07\\nx\t1\n")
    }

    /// Rows SQLite's types let in but PostgreSQL refuses (a NULL in a TEXT key): the message
    /// names the table and the row; nothing is left on the server.
    @Test func aRowPostgreSQLRefusesIsNamedAndNothingIsCopied() throws {
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("nullkey.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [path, """
            CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a VALUES (1);
            CREATE TABLE k (code TEXT PRIMARY KEY, n INTEGER); INSERT INTO k VALUES ('x', 1), ('y', 2), (NULL, 3);
            """])
        let target = try TargetDatabase()
        let run = try Shell.run([path, "--copy-to", target.url])
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("error: cannot copy k, row 3: NOT NULL constraint failed: k.code"), "\(run.stderr)")
        #expect(try tables(target) == [])
    }
}

/// A PostgreSQL server of a test's own (`scripts/postgres-test-server`), which the test may stop
/// and restart without disturbing the shared one.
final class PrivateServer {
    let directory: String
    private let script = Shell.repository.appendingPathComponent("scripts/postgres-test-server").path

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString.prefix(8))").path
        let environment = try Spawn.run(script, ["start", directory])
        guard environment.contains("PGHOST") else { throw PortalError(.cannotOpen, "the private server did not start") }
    }

    func execute(_ sql: String) throws {
        try PostgresConnection("host=\(directory) user=postgres dbname=postgres").execute(sql)
    }

    /// The first value of `sql`'s first row, as text.
    func rows(_ database: String, _ sql: String) throws -> String {
        let statement = try PostgresConnection("host=\(directory) user=postgres dbname=\(database)").prepare(sql)
        guard try statement.step() else { return "" }
        switch statement.value(at: 0) {
        case .integer(let n): return String(n)
        case .text(let text): return text
        default: return ""
        }
    }

    /// A fast shutdown (every session ended) and a start.
    func restart() throws { try Spawn.run(script, ["restart", directory]) }

    func stop() { _ = try? Spawn.run(script, ["stop", directory]) }
}
