import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How scripts and piped input are cut into commands and run: in time linear in their size,
/// stopped by a signal while they are read, each command as soon as its line has arrived, an
/// `sql` statement across lines, and a reader that goes away failing only the command writing.
@Suite struct ScriptInputTests {
    let folder: URL
    let db: String

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func sqlite(_ sql: String) throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [db, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `script` through bash (pipes, `head`), with `$BIN` the binary and `$DB` the database;
    /// killed after `limit` seconds. Returns standard output and whether it finished in time.
    func bash(_ script: String, limit: Int = 120) throws -> (output: String, finished: Bool) {
        let out = path("bash-\(UUID().uuidString).out")
        let pid = try Spawn.start("/usr/bin/env", ["BIN=\(Shell.binary)", "DB=\(db)", "/bin/bash", "-c", script],
                                  stdout: out, stderr: path("bash.err"))
        let finished = waitUpTo(pid, seconds: limit)
        return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "", finished)
    }

    /// Waits for `pid` up to `seconds`; kills its process group's leader and returns false past it.
    func waitUpTo(_ pid: pid_t, seconds: Int) -> Bool {
        exitStatus(pid, seconds: seconds) != nil
    }

    /// The exit status of `pid` (128 + the signal when one ended it), waiting up to `seconds`;
    /// nil, with the process killed, past it.
    func exitStatus(_ pid: pid_t, seconds: Int) -> Int32? {
        for _ in 0..<(seconds * 20) {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f) }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        _ = Spawn.wait(pid)
        return nil
    }

    /// A command holding a million spaces is cut from its script in time linear in its size.
    @Test func aMillionSpacesInACommandAreReadInLinearTime() throws {
        let script = path("spaces.txt")
        try ("count" + String(repeating: " ", count: 1_000_000) + "Genre\ncount Album\n").write(toFile: script, atomically: true, encoding: .utf8)
        let pid = try Spawn.start(Shell.binary, ["-r", db, "-f", script], stdout: path("spaces.out"))
        #expect(waitUpTo(pid, seconds: 60))
        #expect(try String(contentsOfFile: path("spaces.out"), encoding: .utf8) == "25\n347\n")
    }

    /// A predicate of more values than one SQLite statement binds is refused in words, not with
    /// SQLite's "too many SQL variables".
    @Test func aPredicateOfMoreValuesThanAStatementBindsIsRefusedInWords() throws {
        let script = path("values.txt")
        try ("count Track where TrackId IN {" + (1...250_001).map(String.init).joined(separator: ",") + "}\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let r = try Shell.run(["-r", db, "-f", script])
        #expect(r.stderr.contains("error: the predicate compares with 250001 values, more than one statement can bind (250000): split it"),
                "\(r.stderr.prefix(300))")
        #expect(r.status == 1)
    }

    /// SIGINT while a script of megabytes is still being read and parsed: the run stops as an
    /// interrupted one (130), and the command after it never runs.
    @Test func aSignalWhileALongScriptIsReadStopsIt() throws {
        let terms = (1...300_000).map { "TrackId == \($0)" }.joined(separator: " OR ")
        let script = path("long.txt")
        try "count Track where \(terms)\ncreate Genre set Name = \"after the signal\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        let errors = path("long.err")
        let pid = try Spawn.start(Shell.binary, [db, "-f", script], stdout: "/dev/null", stderr: errors)
        usleep(1_000_000)
        kill(pid, SIGINT)
        #expect(exitStatus(pid, seconds: 90) == 130)
        #expect(try sqlite("SELECT count(*) FROM Genre WHERE Name = 'after the signal'") == "0")
    }

    /// A chain of 100,000 `==` on a column without an index answers as its list would: SQLite
    /// alone takes minutes over such a chain, and one `IN (…)` a moment.
    @Test func aLongOrChainOfEqualitiesAnswersAsItsList() throws {
        let names = (1...100_000).map { "\"Track \($0)\"" } + ["\"Balls to the Wall\"", "\"Fast As a Shark\""]
        let script = path("chain.txt")
        try ("count Track where " + names.map { "Name == \($0)" }.joined(separator: " OR ") + "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let pid = try Spawn.start(Shell.binary, ["-r", db, "-f", script], stdout: path("chain.out"), stderr: path("chain.err"))
        #expect(waitUpTo(pid, seconds: 120))
        #expect(try String(contentsOfFile: path("chain.out"), encoding: .utf8) == "2\n")
    }

    /// SIGINT while one command of a million terms is lexed, parsed and compiled stops it there,
    /// in well under the time the rest of that work takes, as an interrupted run: 130. The
    /// command comes through a FIFO, so that the signal is sent once all of it has been read.
    /// The same for a Swift closure's text.
    @Test(arguments: [false, true]) func aSignalDuringOneHugeCommandsParseStopsItThere(closure: Bool) throws {
        let script = path("huge.txt")
        let terms = (1...1_000_000).map { closure ? "$0.Name == \"n\($0)\"" : "Name == \"n\($0)\"" }
        let predicate = closure ? "{ " + terms.joined(separator: " || ") + " }" : terms.joined(separator: " OR ")
        try ("count Track where " + predicate + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let (output, finished) = try bash("""
            cd '\(folder.path)' && mkfifo huge.fifo
            "$BIN" -r "$DB" < huge.fifo > /dev/null 2>&1 & pid=$!
            cat huge.txt > huge.fifo
            sleep 1
            kill -INT $pid; sent=$(date +%s%N)
            wait $pid; status=$?
            echo "$status $(( ($(date +%s%N) - sent) / 1000000 ))"
            """)
        #expect(finished)
        let parts = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(parts.count == 2 && parts[0] == 130, "\(output)")
        // The whole command takes ten times this; a stop after the parse or the compile misses it.
        #expect(parts.count == 2 && parts[1] < 5000, "stopped \(parts.last ?? -1) ms after the signal")
    }

    /// A reader that stops reading (`| head -1`) fails the command that was writing, with a
    /// message; with `--on-error continue` the next command still runs.
    @Test func aClosedPipeFailsOnlyTheCommandWriting() throws {
        let rows = "sql WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT i FROM n"
        let run = try bash("""
            "$BIN" "$DB" --on-error continue -e '\(rows)' -e 'create Genre set Name = "after the pipe closed"' 2>"$DB.err" | head -1
            echo "status ${PIPESTATUS[0]}"
            """)
        #expect(run.finished)
        #expect(run.output == "i\nstatus 1\n")
        let errors = try String(contentsOfFile: db + ".err", encoding: .utf8)
        #expect(errors.hasPrefix("error: writing the output failed: Broken pipe\n"), "\(errors)")
        #expect(try sqlite("SELECT count(*) FROM Genre WHERE Name = 'after the pipe closed'") == "1")
        // Stopping at the first error (the default), the run ends there with status 1.
        let stopped = try bash("""
            "$BIN" "$DB" -e '\(rows)' -e 'create Genre set Name = "never"' 2>/dev/null | head -1
            echo "status ${PIPESTATUS[0]}"
            """)
        #expect(stopped.output == "i\nstatus 1\n")
        #expect(try sqlite("SELECT count(*) FROM Genre WHERE Name = 'never'") == "0")
    }

    /// Piped commands run as their lines arrive, not at the end of input: the writer sees the
    /// first command's row in the database before it sends the second line.
    @Test func pipedCommandsRunAsTheirLinesArrive() throws {
        let run = try bash("""
            (
              echo 'create Genre set Name = "early"'
              seen=unseen
              for i in $(seq 200); do
                if [ "$(sqlite3 "$DB" "SELECT count(*) FROM Genre WHERE Name = 'early'")" = 1 ]; then seen=seen; break; fi
                sleep 0.05
              done
              echo "sql SELECT '$seen';"
              echo 'count Genre where Name == "early"'
            ) | "$BIN" "$DB" --format csv --no-header 2>/dev/null
            """)
        #expect(run.finished)
        #expect(run.output == "26,early\nseen\n1\n")
    }

    /// An `sql` statement laid out over lines, as sqlite3 users write it, is one statement; the
    /// command on the next line is a command again.
    @Test func anSQLStatementSpansLines() throws {
        let script = path("multiline.txt")
        try """
            sql SELECT Name,
                   Milliseconds
            FROM Track
            WHERE TrackId < 4
              AND GenreId = 1
            ORDER BY Name
            count Genre
            sql CREATE TABLE Note (
              id INTEGER PRIMARY KEY,
              body TEXT
            )
            sql INSERT INTO Note (body)
            VALUES ('a'), ('b')
            sql SELECT 1 AS one
            UNION
            SELECT 2 ORDER BY 1;
            count Note

            """.write(toFile: script, atomically: true, encoding: .utf8)
        let r = try Shell.run([db, "-f", script, "--format", "csv"])
        #expect(r.stderr == "ok (0 rows changed)\nok (2 rows changed)\n")
        #expect(r.stdout == """
            Name,Milliseconds
            Balls to the Wall,342562
            Fast As a Shark,230619
            For Those About To Rock (We Salute You),343719
            25
            one
            1
            2
            2

            """)
        #expect(r.status == 0)
    }
}
