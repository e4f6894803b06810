import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Signals, locks and unfinished transactions: a write is
/// either rolled back whole with status 130 or kept whole with status 0; a signal while opening
/// ends the session as an interrupted one; exit does not wait for other processes; a transaction
/// left open is never silently dropped.
@Suite(.serialized) struct SignalSafetyTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs `sql` with the sqlite3 shell (the second implementation the results are checked with).
    @discardableResult
    func sqlite(_ database: String, _ sql: String) throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The binary on `database` with `command`; a signal (SIGINT and SIGTERM in turn) after
    /// `delay` seconds, unless nil. Returns the exit status and standard error.
    func runSignalled(_ database: String, _ command: String, after delay: Double?, signal: Int32) throws -> (Int32, String) {
        let errors = path("stderr-\(UUID().uuidString)")
        let pid = try Spawn.start(Shell.binary, [database, "-e", command], stdout: "/dev/null", stderr: errors)
        if let delay {
            usleep(useconds_t(delay * 1_000_000))
            kill(pid, signal)
        }
        let status = Spawn.wait(pid)
        return (status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    /// A moment into a run of `duration`: from 0.1 s (a signal before the program has started
    /// running cannot be caught by it: the shell sees 143) to past its end.
    func randomMoment(_ duration: Double, past factor: Double) -> Double {
        Double.random(in: 0.1...max(0.2, duration * factor))
    }

    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    // MARK: Point 1

    /// Runs `command` on a copy of `original` once whole (to time it), then `runs` times with a
    /// signal (SIGINT and SIGTERM in turn) at a random moment from 0.1 s to past its end. Each
    /// run must end 130 with `untouched` as the answer of `probe`, or 0 with `done`; the file
    /// must stay sound. Returns how often each status came.
    @discardableResult
    func signalRuns(_ name: String, on original: String, _ command: String, runs: Int = 10, past factor: Double,
                    probe: String, untouched: String, done: String) throws -> [Int32: Int] {
        let duration = try seconds {
            let whole = path("\(name)-whole.sqlite")
            try FileManager.default.copyItem(atPath: original, toPath: whole)
            #expect(try runSignalled(whole, command, after: nil, signal: 0).0 == 0)
            #expect(try sqlite(whole, probe) == done)
        }
        var outcomes: [Int32: Int] = [:]
        for run in 0..<runs {
            let copy = path("\(name)-\(run).sqlite")
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            let signal = run % 2 == 0 ? SIGINT : SIGTERM
            let (status, errors) = try runSignalled(copy, command, after: randomMoment(duration, past: factor), signal: signal)
            let answer = try sqlite(copy, probe)
            #expect(status == 130 || status == 0, "run \(run): status \(status), \(errors)")
            #expect(answer == (status == 130 ? untouched : done), "run \(run): status \(status), yet \(probe) gives \(answer)")
            #expect(try sqlite(copy, "PRAGMA integrity_check") == "ok")
            outcomes[status, default: 0] += 1
        }
        return outcomes
    }

    /// 10 signals at random moments into an import of 60,000 rows: before its commit the whole
    /// import rolls back (130); after it, the run succeeded (0) and every row is there. Never
    /// 130 with rows written, never a half import; the file stays sound.
    @Test func signalsDuringImportRollBackOrKeepAll() throws {
        let rows = 60_000
        var csv = "a,b,c\n"
        for i in 0..<rows { csv += "\(i),name \(i),\(Double(i) * 0.5)\n" }
        try csv.write(toFile: path("rows.csv"), atomically: true, encoding: .utf8)
        let empty = path("empty.sqlite")
        try sqlite(empty, "CREATE TABLE t (a INTEGER, b TEXT, c REAL)")
        let outcomes = try signalRuns("import", on: empty, "import t from \(path("rows.csv")) as csv", past: 1.3,
                                      probe: "SELECT count(*) FROM t", untouched: "0", done: "\(rows)")
        // The early half of the delays lands before the commit.
        #expect(outcomes[130, default: 0] > 0)
    }

    /// 10 signals at random moments into an `update … where TRUEPREDICATE` of 300,000 rows,
    /// including just after it: all rows changed (0) or none (130).
    @Test func signalsDuringUpdateRollBackOrKeepAll() throws {
        let original = path("update.sqlite")
        try sqlite(original, """
            CREATE TABLE t (a INTEGER PRIMARY KEY, c INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
            INSERT INTO t SELECT i, 0 FROM n;
            """)
        try signalRuns("update", on: original, "update t set c = c + 1 where TRUEPREDICATE", past: 1.5,
                       probe: "SELECT sum(c) FROM t", untouched: "0", done: "300000")
    }

    // MARK: Point 2

    /// Another process holds an exclusive lock (rollback journal), so opening waits; SIGTERM
    /// then ends the run with 130 and a message, instead of killing it (143).
    @Test func sigtermWhileOpeningBehindALockEndsWith130() throws {
        let database = path("locked.sqlite")
        try sqlite(database, "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);")
        let holder = try LockHolder(database, "BEGIN EXCLUSIVE; DELETE FROM t; SELECT 'held';")
        defer { holder.release() }
        let errors = path("open-stderr")
        let pid = try Spawn.start(Shell.binary, [database, "--busy-timeout", "60000", "-e", "count t"],
                                  stdout: "/dev/null", stderr: errors)
        usleep(700_000)   // opening is waiting for the lock by now (or the signal comes earlier: same answer)
        kill(pid, SIGTERM)
        #expect(Spawn.wait(pid) == 130)
        #expect(((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("interrupted"))
    }

    // MARK: Point 7

    /// Another process keeps a read transaction open on a WAL database: a write, then exit. The
    /// close-time checkpoint must not wait for that reader (with a busy timeout of 10 minutes,
    /// waiting would outlast the watchdog below, which then fails the test).
    @Test func exitDoesNotWaitForAnotherProcessReading() throws {
        let database = path("wal.sqlite")
        try sqlite(database, "PRAGMA journal_mode = WAL; CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);")
        let holder = try LockHolder(database, "BEGIN; SELECT count(*) FROM t;")
        defer { holder.release() }
        let pid = try Spawn.start(Shell.binary, [database, "--busy-timeout", "600000", "-e", "update t set a = 2 where a == 1"],
                                  stdout: "/dev/null")
        var status: Int32 = 0
        var exited = false
        for _ in 0..<600 {   // at most 60 s
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                break
            }
            usleep(100_000)
        }
        if !exited {
            kill(pid, SIGKILL)
            _ = Spawn.wait(pid)
        }
        #expect(exited, "the shell was still waiting at exit after a minute")
        #expect(exited && (status >> 8) & 0xff == 0)
        holder.release()
        #expect(try sqlite(database, "SELECT a FROM t") == "2")
    }

    // MARK: Point 11

    /// A script that ends with its transaction open rolls it back, says so, and fails.
    @Test func scriptEndingInsideATransactionRollsBackAndFails() throws {
        let (_, database) = try Shell.chinookCopy()
        for script in ["begin; create Genre set Name = 'Left open'",
                       "begin; create Genre set Name = 'Left open'; quit; commit"] {
            let r = try Shell.run([database, "-e", script])
            #expect(r.status == 1, "\(script)")
            #expect(r.stderr.contains("never committed: rolled back"), "\(r.stderr)")
            #expect(try Shell.run([database, "-e", "count Genre where Name == 'Left open'"]).stdout == "0\n")
        }
        // Committed, it stays.
        #expect(try Shell.run([database, "-e", "begin; create Genre set Name = 'Kept'; commit"]).status == 0)
        #expect(try Shell.run([database, "-e", "count Genre where Name == 'Kept'"]).stdout == "1\n")
        // `open` refuses to drop the transaction.
        let other = try Shell.run([database, "-e", "begin; create Genre set Name = 'X'; open \(Shell.chinook)"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("a transaction is open"))
    }

    /// At the prompt, `quit` and Ctrl-D with a transaction open ask: stay, commit or roll back.
    @Test func quittingTheREPLAsksAboutTheOpenTransaction() throws {
        let (home, database) = try Shell.chinookCopy()
        let session = try TmuxSession(arguments: [database, "--no-init"], home: home)
        try session.waitFor("chinook>")
        try session.type("begin\n")
        try session.waitFor("chinook*>")
        try session.type("create Genre set Name = 'Asked'\n")
        try session.waitFor("Asked")
        try session.type("quit\n")
        try session.waitFor("commit, roll back, or stay? [c/r/S]")
        try session.type("\n")   // the default: stay
        try session.type("count Genre where Name == 'Asked'\n")
        try session.waitFor("\n1\n")
        try session.press("C-d")
        try session.waitFor("[c/r/S]")
        try session.type("c\n")
        #expect(try session.waitForExit())
        #expect(try Shell.run([database, "-e", "count Genre where Name == 'Asked'"]).stdout == "1\n")

        let second = try TmuxSession(arguments: [database, "--no-init"], home: home)
        try second.waitFor("chinook>")
        try second.type("begin; delete Genre where Name == 'Asked'\n")
        try second.waitFor("deleted 1 Genre")
        try second.type("quit\n")
        try second.waitFor("[c/r/S]")
        try second.type("r\n")
        #expect(try second.waitForExit())
        #expect(try Shell.run([database, "-e", "count Genre where Name == 'Asked'"]).stdout == "1\n")
    }
}

/// The sqlite3 shell in another process holding a lock or a read transaction, opened by the
/// statements given and kept until `release()`.
final class LockHolder {
    private let process = Process()
    private let input = Pipe()
    private var released = false

    init(_ database: String, _ statements: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("\(statements)\nSELECT 'ready';\n".utf8))
        // The lock is held once sqlite3 has answered the statements.
        var seen = ""
        while !seen.contains("ready") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { throw SpawnError(message: "sqlite3 ended before holding the lock") }
            seen += String(decoding: data, as: UTF8.self)
        }
    }

    func release() {
        guard !released else { return }
        released = true
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
