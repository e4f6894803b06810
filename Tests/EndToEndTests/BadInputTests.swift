import Foundation
import Testing

/// Bad input: each gives a clear message, the right exit status, and loses nothing.
@Suite struct BadInputTests {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func run(_ commands: String, _ extra: [String] = []) throws -> Run {
        try Shell.run([db, "-e", commands] + extra)
    }

    @Test func unknownCommandEntityAttribute() throws {
        let command = try run("fnd Track")
        #expect(command.status == 1)
        #expect(command.stderr == "error: unknown command 'fnd' (did you mean 'find'?)\n  fnd Track\n  ^~~\n")
        let entity = try run("count Trak")
        #expect(entity.status == 1)
        #expect(entity.stderr == "error: unknown entity 'Trak' (did you mean 'Track'?)\n  count Trak\n        ^~~~\n")
        let attribute = try run("find Track where Nmae == \"x\"")
        #expect(attribute.status == 1)
        #expect(attribute.stderr.contains("'Nmae'"))
        #expect(attribute.stderr.contains("did you mean 'Name'?"))
        #expect(attribute.stderr.hasSuffix("  find Track where Nmae == \"x\"\n                   ^~~~\n"))
        let sort = try run("find Track sort by Nme")
        #expect(sort.stderr == "error: unknown attribute 'Nme' on Track (did you mean 'Name'?)\n  find Track sort by Nme\n                     ^~~\n")
        let set = try run("update Track set Nme = 'x' where TrackId == 1")
        #expect(set.stderr.hasPrefix("error: unknown attribute 'Nme' on Track (did you mean 'Name'?)\n"))
    }

    @Test func malformedPredicateHasACaret() throws {
        let r = try run("find Track where Name == ")
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: "))
        #expect(r.stderr.hasSuffix("  find Track where Name ==\n                          ^\n"))
        #expect(r.stdout == "")
    }

    @Test func updateAndDeleteWithoutWhereAreRefused() throws {
        let update = try run("update Track set Name = 'x'")
        #expect(update.status == 1)
        #expect(update.stderr.hasPrefix("error: update needs 'where' (write 'where TRUEPREDICATE' to update every Track)\n"))
        let delete = try run("delete Track")
        #expect(delete.status == 1)
        #expect(try run("count Track").stdout == "3503\n")
        let all = try run("delete PlaylistTrack where TRUEPREDICATE")
        #expect(all.stderr == "deleted 8715 PlaylistTrack\n")
    }

    @Test func writesInReadOnlyModeFailAndTheFileIsUntouched() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let r = try Shell.run([db, "--read-only", "-e", "delete Genre where GenreId == 25"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("read-only"))
        let sql = try Shell.run([db, "-r", "-e", "sql DELETE FROM Genre"])
        #expect(sql.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
    }

    @Test func constraintViolationNamesEntityAndAttributeAndChangesNothing() throws {
        let r = try run("create Track set Name = NULL, MediaTypeId = 1, Milliseconds = 1, UnitPrice = 1")
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: Track: NOT NULL constraint failed: Track.Name; nothing was written\n"))
        #expect(r.stderr.contains("^~~~"))
        let fk = try run("update Track set AlbumId = 99999 where TrackId < 5")
        #expect(fk.status == 1)
        #expect(fk.stderr.contains("FOREIGN KEY constraint failed"))
        #expect(try run("count Track where AlbumId == 99999").stdout == "0\n")
    }

    @Test func malformedImportsNameTheLineAndImportNothing() throws {
        let csv = folder.appendingPathComponent("bad.csv").path
        try "Name\nfine\n\"broken\nstill broken\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let r = try run("import Artist from \(csv)")
        #expect(r.status == 1)
        #expect(r.stderr == "error: \(csv), line 3: a quoted field is not closed; nothing was imported\n")
        let fields = folder.appendingPathComponent("fields.csv").path
        try "ArtistId,Name\n900,a\n901\n".write(toFile: fields, atomically: true, encoding: .utf8)
        #expect(try run("import Artist from \(fields)").stderr == "error: \(fields), line 3: 1 field, but the header names 2; nothing was imported\n")
        let json = folder.appendingPathComponent("bad.json").path
        try "[\n{\"Name\": \"ok\"},\n{\"Name\": oops}\n]\n".write(toFile: json, atomically: true, encoding: .utf8)
        let j = try run("import Artist from \(json)")
        #expect(j.status == 1)
        #expect(j.stderr == "error: \(json), line 3: 'oops' is not a JSON value; nothing was imported\n")
        let dup = folder.appendingPathComponent("dup.csv").path
        try "ArtistId,Name\n1000,new\n1,duplicate\n".write(toFile: dup, atomically: true, encoding: .utf8)
        let d = try run("import Artist from \(dup)")
        #expect(d.stderr.hasPrefix("error: \(dup), line 3: Artist: "))
        #expect(try run("count Artist").stdout == "275\n")
    }

    @Test func missingDatabase() throws {
        let r = try Shell.run([folder.appendingPathComponent("nope.sqlite").path, "-e", "count Track"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("no such file"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("nope.sqlite").path))
    }

    @Test func corruptDatabase() throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: db))
        var generator = SystemRandomNumberGenerator()
        try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        try handle.close()
        let r = try Shell.run([db, "-e", "count Track"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("not an SQLite database"))
    }

    @Test func lockedDatabase() throws {
        // Another process holds a write transaction: the sqlite3 shell, kept open by a pipe.
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [db]
        let input = Pipe()
        sqlite.standardInput = input
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        defer {
            try? input.fileHandleForWriting.close()
            sqlite.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE; DELETE FROM Genre WHERE GenreId = 25; SELECT 1;\n".utf8))
        // Wait until the lock is held: a write from us then fails fast with a short timeout.
        var r = try Shell.run([db, "--busy-timeout", "100", "-e", "delete Genre where GenreId == 24"])
        for _ in 0..<20 where r.status == 0 {
            Thread.sleep(forTimeInterval: 0.1)
            r = try Shell.run([db, "--busy-timeout", "100", "-e", "delete Genre where GenreId == 23"])
        }
        #expect(r.status == 1)
        #expect(r.stderr.contains("locked"))
        // Reading still works while another process writes.
        #expect(try Shell.run([db, "-e", "count Genre where GenreId == 25"]).stdout == "1\n")
    }

    @Test func unreadableDatabase() throws {
        chmod(db, 0)
        defer { chmod(db, 0o644) }
        let r = try Shell.run([db, "-e", "count Track"])
        if getuid() == 0 {
            // Root reads any file: permissions cannot be tested here.
            #expect(r.status == 0)
        } else {
            #expect(r.status == 3)
            #expect(r.stderr.contains("permission denied"))
        }
    }

    @Test func fullDisk() throws {
        // A database capped at its current size: SQLite reports SQLITE_FULL as on a full disk.
        let r = try run("sql PRAGMA max_page_count = 1; create Artist set Name = '\(String(repeating: "x", count: 100_000))'")
        #expect(r.status == 1)
        #expect(r.stderr.contains("full"))
        #expect(try run("count Artist").stdout == "275\n")
    }

    @Test func outputToAFullDevice() throws {
        // A failed write fails the command: the script goes on only when told to.
        let r = try Shell.run([db, "--on-error", "continue", "-e", "output /dev/full; find Track; output stdout; count Genre"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("No space left on device"))
        #expect(r.stdout == "25\n")
    }

    @Test func usageErrors() throws {
        #expect(try Shell.run(["--bogus"]).status == 2)
        #expect(try Shell.run(["-e", "count Track"]).status == 2)
        #expect(try Shell.run([db, "--format", "xml", "-e", "count Track"]).status == 2)
        #expect(try Shell.run([db, "--on-error", "maybe"]).status == 2)
        #expect(try Shell.run(["--help"]).status == 0)
        let version = try Shell.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("portal-shell "))
        for shell in ["bash", "zsh", "fish"] {
            let script = try Shell.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("portal-shell"))
        }
    }

    @Test func onErrorContinueRunsTheRest() throws {
        let stop = try run("count Nope; count Genre")
        #expect(stop.status == 1)
        #expect(stop.stdout == "")
        let go = try run("count Nope; count Genre", ["--on-error", "continue"])
        #expect(go.status == 1)
        #expect(go.stdout == "25\n")
    }

    @Test func sigtermRollsBackTheWriteInFlight() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Shell.binary)
        // A write that takes long: a recursive CTE inside one transaction.
        process.arguments = [db, "-e", "sql WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000000) INSERT INTO Genre (Name) SELECT 'g' || i FROM n"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Signal once the write has begun (its journal exists), however slow the start-up was.
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: db + "-journal")
            && !FileManager.default.fileExists(atPath: db + "-wal") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.2)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try run("count Genre").stdout == "25\n")
    }
}
