import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// File and output safety, through the real binary: a failed write of results
/// fails the command, `--demo` never replaces a file by surprise, an export or `output` never
/// lands on the open database, and the browser refuses to start without a terminal.
@Suite struct FileSafetyTests {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    /// A command line run by bash in the test's folder (for redirections), the binary on PATH.
    func bash(_ line: String) throws -> Run {
        try Docs.run("/bin/bash", ["-c", line], in: folder, environment: Docs.environment(in: folder))
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    // MARK: Point 3: a failed write of results is a failed command

    @Test func writeErrorToFullDeviceFailsOnce() throws {
        let r = try bash("portal-shell \(db) -e 'find Track' > /dev/full")
        #expect(r.status == 1)
        #expect(r.stderr == "error: writing the output failed: No space left on device\n")
    }

    @Test func outputToFullDeviceFailsAndStopsTheScript() throws {
        let r = try bash("portal-shell \(db) -e 'output /dev/full' -e 'find Genre' -e \"sql INSERT INTO Genre (Name) VALUES ('x')\"")
        #expect(r.status == 1)
        #expect(r.stderr == "error: writing '/dev/full' failed: No space left on device\n")
        // --on-error stop (the default) stopped before the insert.
        #expect(try Shell.run([db, "-e", "count Genre"]).stdout == "25\n")
        let going = try bash("portal-shell \(db) --on-error continue -e 'output /dev/full' -e 'find Genre' -e 'count Genre' "
                             + "-e 'output stdout' -e 'count Genre'")
        #expect(going.status == 1)
        #expect(going.stdout == "25\n")
        #expect(going.stderr == String(repeating: "error: writing '/dev/full' failed: No space left on device\n", count: 2))
    }

    @Test func failedExportLeavesTheOldFileAsItWas() throws {
        let csv = path("tracks.csv")
        try "old\n".write(toFile: csv, atomically: false, encoding: .utf8)
        let before = try files(folder.path)
        // A file size limit makes the write fail part way (EFBIG; the signal is ignored).
        let r = try bash("trap '' XFSZ; ulimit -f 64; portal-shell \(db) -e 'export Track to tracks.csv'")
        #expect(r.status == 1)
        #expect(r.stderr == "error: writing 'tracks.csv' failed: File too large; the file was left as it was\n")
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "old\n")
        #expect(try files(folder.path) == before, "a temporary file was left behind")
        // Through a link, the file it leads to is replaced and the link kept.
        try FileManager.default.createSymbolicLink(atPath: path("link.csv"), withDestinationPath: "tracks.csv")
        #expect(try bash("portal-shell \(db) -e 'export Genre to link.csv'").status == 0)
        #expect(try String(contentsOfFile: csv, encoding: .utf8).hasPrefix("\"GenreId\",\"Name\"\n1,\"Rock\"\n"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path("link.csv")) == "tracks.csv")
    }

    // MARK: Point 4: --demo refuses an existing file unless --force

    @Test func demoRefusesAnExistingFile() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let r = try Shell.run(["--demo", db])
        #expect(r.status == 2)
        #expect(r.stderr == "error: '\(db)' already exists: nothing was written (--force replaces it)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        // A stale journal alone is refused too: SQLite would replay it into the new file.
        let fresh = path("fresh.sqlite")
        try Data("stale".utf8).write(to: URL(fileURLWithPath: fresh + "-journal"))
        #expect(try Shell.run(["--demo", fresh]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        // --force replaces only regular files, never a device.
        let device = try Shell.run(["--demo", "/dev/null", "--force"])
        #expect(device.status == 1)
        #expect(device.stderr.contains("is not a regular file"))
    }

    @Test func demoWithForceRemovesTheStaleJournalAndWAL() throws {
        for suffix in ["-journal", "-wal", "-shm"] {
            try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: db + suffix))
        }
        let r = try Shell.run(["--demo", db, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        for suffix in ["-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: db + suffix), "\(suffix) was left behind")
        }
        let count = try Shell.run([db, "-e", "count Route"])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout == "600\n")
    }

    // MARK: Point 5: export and output never land on the open database's files

    @Test func exportAndOutputRefuseTheDatabasesOwnFiles() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let name = URL(fileURLWithPath: db).lastPathComponent
        try FileManager.default.createSymbolicLink(atPath: path("link.sqlite"), withDestinationPath: db)
        try FileManager.default.linkItem(atPath: db, toPath: path("hard.sqlite"))
        // A link to the WAL that does not exist yet: opening it for writing would create the WAL.
        try FileManager.default.createSymbolicLink(atPath: path("wal-link"), withDestinationPath: db + "-wal")
        try FileManager.default.createDirectory(atPath: path("sub"), withIntermediateDirectories: true)
        let targets = [name, "./\(name)", "sub/../\(name)", db, "link.sqlite", "hard.sqlite", "wal-link",
                       "\(name)-wal", "./\(name)-shm", "\(name)-journal"]
        for target in targets {
            for command in ["export Genre to \(target) as csv", "output \(target)"] {
                let r = try Docs.run(Shell.binary, [name, "-e", command, "-e", "find Genre"], in: folder)
                #expect(r.status == 1, "\(command)")
                #expect(r.stderr.hasPrefix("error: cannot "), "\(command): \(r.stderr)")
                #expect(r.stderr.contains("of the open database") || r.stderr.contains("it is the open database"), "\(command)")
                #expect(r.stderr.hasSuffix("nothing was written\n"), "\(command): \(r.stderr)")
                #expect(r.stdout == "", "\(command): the script went on")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
        #expect(try Shell.run([db, "-e", "sql PRAGMA integrity_check"]).stdout == "integrity_check\nok\n")
        // Other files are written as before.
        let ok = try Docs.run(Shell.binary, [name, "-e", "export Genre to genres.csv", "-e", "output out.txt", "-e", "count Genre"],
                              in: folder)
        #expect(ok.status == 0)
        #expect(try String(contentsOfFile: path("out.txt"), encoding: .utf8) == "25\n")
    }

    // MARK: Point 10: every type survives export → import

    @Test(arguments: ["csv", "tsv", "json", "ndjson"])
    func everyTypeRoundTripsThroughExportAndImport(format: String) throws {
        let database = path("types.sqlite")
        let table = "(id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB)"
        let rows = [
            "(1, 42, 0.1, 'hello', X'00FF10')",
            "(2, NULL, NULL, NULL, NULL)",
            "(3, -9223372036854775808, 1e300, '007', X'')",
            "(4, 0, 2.0, '', X'68656C6C6F')",
            "(5, 9223372036854775807, -0.000001, '3.14', X'0A0D09225C2C')",
            "(6, 7, 1.5, 'a,\"b\"' || char(10) || char(9) || 'c\\N', NULL)",
            "(7, NULL, NULL, '\\N', X'5C4E')",
            "(8, NULL, NULL, 'null', NULL)",
        ]
        let setUp = try Shell.run([database, "--create", "-e", "sql CREATE TABLE T \(table)", "-e", "sql CREATE TABLE U \(table)",
                                   "-e", "sql INSERT INTO T VALUES " + rows.joined(separator: ", ")])
        #expect(setUp.status == 0, "\(setUp.stderr)")
        let file = path("types.\(format)")
        let copy = try Shell.run([database, "-e", "export T to \(file) as \(format)", "-e", "import U from \(file) as \(format)"])
        #expect(copy.status == 0, "\(copy.stderr)")
        func typed(_ name: String) throws -> String {
            try Shell.run([database, "--format", "csv", "-e", "sql SELECT id, quote(i), typeof(i), quote(r), typeof(r), "
                           + "quote(t), typeof(t), quote(b), typeof(b) FROM \(name) ORDER BY id"]).stdout
        }
        let original = try typed("T")
        #expect(original.hasPrefix("id,") && original.contains("\n8,NULL,null,"), "\(original)")
        let written = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        guard format == "tsv" else {
            #expect(copy.stderr == "exported 8 T to \(file)\nimported 8 U\n")
            #expect(try typed("U") == original, "\(format), the file:\n\(written)")
            return
        }
        // tsv has no blobs: they come back as their base64 text, as export warns.
        #expect(copy.stderr.hasPrefix("warning: tsv has no blobs: 5 blobs were written as base64 text"), "\(copy.stderr)")
        func withoutBlobs(_ name: String) throws -> String {
            try Shell.run([database, "--format", "csv", "-e", "sql SELECT id, quote(i), typeof(i), quote(r), typeof(r), "
                           + "quote(t), typeof(t) FROM \(name) ORDER BY id"]).stdout
        }
        #expect(try withoutBlobs("U") == withoutBlobs("T"))
        #expect(try Shell.run([database, "--format", "csv", "-e", "sql SELECT quote(b) FROM U WHERE id = 1"]).stdout == "quote(b)\n'AP8Q'\n")
    }

    // MARK: Point 8: --read-only creates no file, and opens read-only media

    /// Runs the sqlite3 shell on `database` with `commands` (its dot-commands included).
    func sqlite3(_ database: String, _ commands: String...) throws {
        let r = try Docs.run("/usr/bin/sqlite3", [database] + commands, in: folder)
        #expect(r.status == 0, "sqlite3: \(r.stderr)")
    }

    func files(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// `chattr +i` on a folder binds root too: nothing can be created in it (tests run as root,
    /// for whom permissions alone do not make a folder read-only).
    static let immutableFoldersWork: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("chattr-probe-\(UUID().uuidString)").path
        guard mkdir(probe, 0o755) == 0 else { return false }
        defer { rmdir(probe) }
        guard (try? Docs.run("/usr/bin/chattr", ["+i", probe], in: URL(fileURLWithPath: "/")))?.status == 0 else { return false }
        defer { _ = try? Docs.run("/usr/bin/chattr", ["-i", probe], in: URL(fileURLWithPath: "/")) }
        let created = open(probe + "/x", O_WRONLY | O_CREAT, 0o644)
        if created >= 0 { close(created) }
        return created < 0
    }()

    /// A folder holding a copy of `files` (names in the test's folder), made immutable for `body`.
    func inImmutableFolder(_ names: [String], _ body: (String) throws -> Void) throws {
        let media = path("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(atPath: path(name), toPath: media + "/" + name) }
        #expect(try Docs.run("/usr/bin/chattr", ["+i", media], in: folder).status == 0)
        defer {
            _ = try? Docs.run("/usr/bin/chattr", ["-i", media], in: folder)
            try? FileManager.default.removeItem(atPath: media)
        }
        try body(media)
    }

    @Test func readOnlyOnAWALDatabaseLeavesNoFileBehind() throws {
        try sqlite3(db, "PRAGMA journal_mode = WAL;")
        let before = try files(folder.path)
        let r = try Shell.run([db, "-r", "-e", "count Track", "-e", "find Genre where GenreId == 1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "3503\nGenreId\tName\n1\tRock\n")
        #expect(try files(folder.path) == before, "a read-only session left files behind")
        // A WAL that another connection keeps (here: one that did not checkpoint on close) is read.
        try sqlite3(db, ".dbconfig no_ckpt_on_close on", "UPDATE Genre SET Name = 'Rock!' WHERE GenreId = 1;")
        let withWAL = try files(folder.path)
        #expect(withWAL.contains { $0.hasSuffix("-wal") })
        #expect(try Shell.run([db, "-r", "-e", "find Genre where GenreId == 1"]).stdout == "GenreId\tName\n1\tRock!\n")
        #expect(try files(folder.path) == withWAL)
    }

    @Test(.enabled(if: FileSafetyTests.immutableFoldersWork))
    func readOnlyOpensAWALDatabaseOnReadOnlyMedia() throws {
        try sqlite3(db, "PRAGMA journal_mode = WAL;")
        let name = URL(fileURLWithPath: db).lastPathComponent
        try inImmutableFolder([name]) { media in
            let r = try Shell.run([media + "/" + name, "-r", "-e", "count Track"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "3503\n")
            #expect(try files(media) == [name])
        }
        // Changes still in the WAL are read when its -shm is there too…
        try sqlite3(db, ".dbconfig no_ckpt_on_close on", "UPDATE Genre SET Name = 'Rock!' WHERE GenreId = 1;")
        try inImmutableFolder([name, name + "-wal", name + "-shm"]) { media in
            let r = try Shell.run([media + "/" + name, "-r", "-e", "find Genre where GenreId == 1"])
            #expect(r.stdout == "GenreId\tName\n1\tRock!\n", "\(r.stderr)")
        }
        // …and without it a read-only session says why it cannot read them.
        try inImmutableFolder([name, name + "-wal"]) { media in
            let r = try Shell.run([media + "/" + name, "-r", "-e", "count Track"])
            #expect(r.status == 3)
            #expect(r.stderr.contains("-wal' holds committed changes not yet in the database"), "\(r.stderr)")
            #expect(r.stderr.contains("Open it once without --read-only"))
            #expect(try files(media) == [name, name + "-wal"])
        }
    }

    @Test func hotJournalUnderReadOnlySaysHowToRecover() throws {
        let exclaimed = try Shell.run([db, "-e", "count Track where Name ENDSWITH \"!\""]).stdout
        // A copy taken while a write has spilled into the file: what a crash leaves behind.
        let crashed = path("crashed")
        try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
        try sqlite3(db, "PRAGMA cache_size = 2;", "BEGIN;", "UPDATE Track SET Name = Name || '!';",
                    ".system cp \(db) \(db)-journal \(crashed)/", "ROLLBACK;")
        let name = URL(fileURLWithPath: db).lastPathComponent
        let copy = crashed + "/" + name
        #expect(try files(crashed) == [name, name + "-journal"])
        let r = try Shell.run([copy, "-r", "-e", "count Track"])
        #expect(r.status == 3)
        #expect(r.stderr.hasPrefix("error: cannot open '\(copy)' read-only: '\(copy)-journal' is a hot journal, left by a write "
                                   + "that crashed before it finished"), "\(r.stderr)")
        #expect(r.stderr.contains("Open the database once without --read-only"))
        #expect(try files(crashed) == [name, name + "-journal"])
        // The advice holds: a writable open rolls the crashed write back.
        let recovered = try Shell.run([copy, "-e", "count Track where Name ENDSWITH \"!\""])
        #expect(recovered.stdout == exclaimed, "\(recovered.stderr)")
        #expect(try Shell.run([copy, "-r", "-e", "count Track"]).stdout == "3503\n")
    }

    // MARK: Point 15: the browser without a terminal

    @Test func browseWithoutATerminalFailsAtOnce() throws {
        // `timeout` turns the old endless loop into a failure (124) instead of a hung test.
        let flag = try bash("timeout 20 portal-shell --browse \(db) < /dev/null")
        #expect(flag.status == 2)
        #expect(flag.stderr == "error: the browser needs a terminal: standard input and standard output are not a terminal "
                + "(to print results, use find)\n")
        let command = try bash("timeout 20 portal-shell \(db) -e browse > \(path("out.txt"))")
        #expect(command.status == 2)
        #expect(command.stderr.hasPrefix("error: the browser needs a terminal: "))
    }
}
