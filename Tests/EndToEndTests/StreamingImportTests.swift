import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `import` streams its file (large files import whole, in one transaction, in flat
/// memory; a late error names its line and changes nothing), and empty csv fields follow one
/// stated rule. Through the real binary, against the sqlite3 shell where it does the same.
@Suite struct StreamingImportTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func sqlite(_ database: String, _ sql: String) throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A database with table `name` of the bench's shape: id, a real, two texts, a nullable text.
    func database(_ file: String, tables: [String]) throws -> String {
        let database = path(file)
        for table in tables {
            _ = try sqlite(database, "CREATE TABLE \(table) (id INTEGER PRIMARY KEY, score REAL NOT NULL, name TEXT NOT NULL, "
                           + "city TEXT NOT NULL, note TEXT)")
        }
        return database
    }

    /// `rows` csv records after a header: quoted commas, `""`, lines inside quotes, empty notes
    /// (unquoted, so every empty field lands in a TEXT column), non-ASCII text.
    func csvRows(_ rows: Int) -> String {
        let cities = ["Zürich", "São Paulo", "Kraków", "東京", "Oslo"]
        var text = "id,score,name,city,note\n"
        text.reserveCapacity(rows * 48)
        for id in 1...rows {
            let note: String
            switch id % 4 {
            case 0: note = ""
            case 1: note = "\"a, \"\"quoted\"\" note #\(id % 97)\""
            case 2: note = "\"two\nlines \(id)\""
            default: note = "plain \(id)"
            }
            text += "\(id),\(Double(id) / 8),name \(id),\(cities[id % cities.count]),\(note)\n"
        }
        return text
    }

    /// Rows of `table` that are not in `other`, both ways (0 when the tables hold the same).
    func difference(_ database: String, _ table: String, _ other: String) throws -> String {
        try sqlite(database, "SELECT (SELECT count(*) FROM (SELECT * FROM \(table) EXCEPT SELECT * FROM \(other))) "
                   + "+ (SELECT count(*) FROM (SELECT * FROM \(other) EXCEPT SELECT * FROM \(table)))")
    }

    @Test func largeCSVImportsAsSqlite3Does() throws {
        let rows = 250_000
        let csv = path("big.csv")
        try csvRows(rows).write(toFile: csv, atomically: true, encoding: .utf8)
        let database = try database("big.sqlite", tables: ["T", "S"])
        let r = try Shell.run([database, "-e", "import T from \(csv)"])
        #expect(r.status == 0)
        // Standard error is no terminal here: no progress, only the outcome.
        #expect(r.stderr == "imported \(rows) T\n")
        _ = try Spawn.run("/usr/bin/sqlite3", [database, ".import --csv --skip 1 \(csv) S"])
        #expect(try sqlite(database, "SELECT count(*), sum(note = ''), sum(note IS NULL), sum(typeof(score) = 'real') FROM T")
                == "\(rows)|\(rows / 4)|0|\(rows)")
        #expect(try difference(database, "T", "S") == "0")
    }

    @Test func largeNDJSONImports() throws {
        let rows = 200_000
        var ndjson = ""
        var csv = "id,score,name,city,note\n"
        for id in 1...rows {
            let note = id % 5 == 0 ? "null" : "\"note \\\"\(id)\\\" \\u00e9\""
            ndjson += "{\"id\": \(id), \"score\": \(Double(id) / 4), \"name\": \"name \(id)\", \"city\": \"Kraków\", \"note\": \(note)}\n"
            csv += "\(id),\(Double(id) / 4),name \(id),Kraków,\(id % 5 == 0 ? "" : "\"note \"\"\(id)\"\" é\"")\n"
        }
        try ndjson.write(toFile: path("big.ndjson"), atomically: true, encoding: .utf8)
        try csv.write(toFile: path("same.csv"), atomically: true, encoding: .utf8)
        let database = try database("json.sqlite", tables: ["T", "S"])
        let r = try Shell.run([database, "-e", "import T from \(path("big.ndjson"))"])
        #expect(r.status == 0)
        #expect(r.stderr == "imported \(rows) T\n")
        _ = try Spawn.run("/usr/bin/sqlite3", [database, ".import --csv --skip 1 \(path("same.csv")) S"])
        // sqlite3 stores an empty field as ''; the JSON has null there.
        _ = try sqlite(database, "UPDATE S SET note = NULL WHERE note = ''")
        #expect(try sqlite(database, "SELECT count(*), sum(note IS NULL) FROM T") == "\(rows)|\(rows / 5)")
        #expect(try difference(database, "T", "S") == "0")
    }

    /// An error on the last lines of a large file: the message names the line, and the table
    /// is as it was (its rows and their content).
    @Test(arguments: ["field count", "open quote", "duplicate key", "json"])
    func aLateErrorNamesItsLineAndChangesNothing(kind: String) throws {
        let rows = 200_000
        let database = try database("late-\(kind.replacingOccurrences(of: " ", with: "-")).sqlite", tables: ["T"])
        _ = try sqlite(database, "INSERT INTO T VALUES (-1, 1, 'kept', 'Oslo', NULL), (-2, 2, 'also kept', 'Oslo', 'x')")
        let before = try sqlite(database, "SELECT group_concat(quote(id) || quote(score) || name || city || quote(note), ';') FROM T")
        var text = csvRows(rows)
        // csvRows' records take one line each, plus one more for every id ≡ 2 (mod 4).
        let lastLine = 1 + rows + rows / 4 + (rows % 4 >= 2 ? 1 : 0)
        let file: String
        let expected: String
        switch kind {
        case "field count":
            text += "900001,1.5,short\n"
            file = path("late.csv")
            expected = "line \(lastLine + 1): 3 fields, but the header names 5"
        case "open quote":
            text += "900001,1.5,x,Oslo,\"not closed\n900002,1,y,Oslo,z\n"
            file = path("late.csv")
            expected = "line \(lastLine + 1): a quoted field is not closed"
        case "duplicate key":
            text += "900001,1.5,x,Oslo,\n17,1,again,Oslo,\n"
            file = path("late.csv")
            expected = "line \(lastLine + 2): T: "
        default:
            text = (1...rows).map { "{\"id\": \($0), \"score\": 1, \"name\": \"n\", \"city\": \"c\"}\n" }.joined()
                + "{\"id\": 900001, \"score\": 1, \"name\": \"n\", \"city\": oops}\n"
            file = path("late.ndjson")
            expected = "line \(rows + 1): 'oops' is not a JSON value"
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try Shell.run([database, "-e", "import T from \(file)"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: \(file), \(expected)"), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("; nothing was imported\n"), "\(r.stderr)")
        #expect(try sqlite(database, "SELECT group_concat(quote(id) || quote(score) || name || city || quote(note), ';') FROM T") == before)
    }

    /// Peak memory (the resident set GNU time reports) stays under 50 MB while the file is
    /// larger than that: the file is never held whole.
    @Test func importMemoryStaysFlatWhateverTheFileSize() throws {
        let rows = 90_000
        let padding = String(repeating: "x", count: 700)
        var text = "id,score,name,city,note\n"
        text.reserveCapacity(rows * 760)
        for id in 1...rows { text += "\(id),\(id),name \(id),Oslo,\(padding)\n" }
        let csv = path("wide.csv")
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        text = ""
        let size = try #require(try FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int)
        #expect(size > 60_000_000)
        let database = try database("wide.sqlite", tables: ["T"])
        // Through time(1), which forks the binary from its own small process: a child spawned
        // from this test process would be charged the test process's peak (Linux keeps the
        // larger of the two across exec).
        let report = path("peak.txt")
        _ = try Spawn.run("/usr/bin/time", ["-f", "%x %M", "-o", report, Shell.binary, database, "-e", "import T from \(csv)"])
        let measured = try String(contentsOfFile: report, encoding: .utf8).split(separator: " ")
            .map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(measured.first == 0)
        #expect(try sqlite(database, "SELECT count(*), sum(length(note)) FROM T") == "\(rows)|\(rows * 700)")
        let peakKilobytes = try #require(measured.last ?? nil)
        #expect(peakKilobytes > 1_000 && peakKilobytes < 50 * 1024, "peak \(peakKilobytes) KiB for a file of \(size) bytes")
    }

    /// A named pipe, which cannot be read twice, imports all the same (read whole first); a
    /// folder is refused by name.
    @Test func aPipeImportsAndAFolderIsRefused() throws {
        let database = try database("pipe.sqlite", tables: ["T"])
        let fifo = path("rows.csv")
        #expect(mkfifo(fifo, 0o600) == 0)
        let csv = path("source.csv")
        try csvRows(1_000).write(toFile: csv, atomically: true, encoding: .utf8)
        let writer = try Spawn.start("/bin/sh", ["-c", "cat \(csv) > \(fifo)"], stdout: "/dev/null")
        let r = try Shell.run([database, "-e", "import T from \(fifo) as csv"])
        #expect(Spawn.wait(writer) == 0)
        #expect(r.stderr == "imported 1000 T\n")
        #expect(try sqlite(database, "SELECT count(*), sum(note = '') FROM T") == "1000|250")
        let folder = try Shell.run([database, "-e", "import T from \(self.folder.path) as csv"])
        #expect(folder.stderr == "error: cannot read '\(self.folder.path)': Is a directory\n")
    }

    /// On a terminal, the import shows how far it has got, and clears the line when done.
    @Test func progressOnATerminal() throws {
        let rows = 120_000
        let csv = path("progress.csv")
        try csvRows(rows).write(toFile: csv, atomically: true, encoding: .utf8)
        let database = try database("progress.sqlite", tables: ["T"])
        // script(1) runs the command on a pseudo-terminal and copies what it writes.
        let command = "\(Shell.binary) \(database) -e 'import T from \(csv)' </dev/null"
        let output = try Spawn.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        #expect(output.contains("\r\u{1B}[Kimporting… 50000 records, "), "\(output.debugDescription)")
        #expect(output.contains("\r\u{1B}[Kimporting… 100000 records, "))
        #expect(output.contains("\r\u{1B}[Kimported \(rows) T"))
    }

    /// The empty-field rule, end to end: in a file that does not tell NULL from empty text,
    /// an empty field is '' in a TEXT column (as sqlite3 stores it) and NULL in the others; in
    /// one that does (a csv `""`, as `export` writes), an unquoted empty field is NULL and `""`
    /// is ''.
    @Test func emptyFieldsFollowTheStatedRule() throws {
        let database = path("empty.sqlite")
        _ = try sqlite(database, """
            CREATE TABLE T (id INTEGER PRIMARY KEY, t TEXT, v VARCHAR(10), n INTEGER, r REAL, b BLOB, a, \
            required TEXT NOT NULL);
            CREATE TABLE S AS SELECT * FROM T WHERE 0;
            """)
        let probe = "SELECT id, quote(t), quote(v), quote(n), quote(r), quote(b), quote(a), quote(required) FROM T ORDER BY id"
        let plain = path("plain.csv")
        try "id,t,v,n,r,b,a,required\n1,,,,,,,\n2,x,y,3,4.5,,z,w\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let r = try Shell.run([database, "-e", "import T from \(plain)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try sqlite(database, probe) == "1|''|''|NULL|NULL|NULL|NULL|''\n2|'x'|'y'|3|4.5|NULL|'z'|'w'")
        // sqlite3 stores '' in every column; in the TEXT ones, we agree.
        _ = try Spawn.run("/usr/bin/sqlite3", [database, ".import --csv --skip 1 \(plain) S"])
        #expect(try sqlite(database, "SELECT quote(t), quote(v), quote(required) FROM S WHERE id = 1") == "''|''|''")

        _ = try sqlite(database, "DELETE FROM T")
        let marked = path("marked.csv")
        try "id,t,v,n,r,b,a,required\n1,,\"\",,,,,x\n2,\"\",,\"\",,,,\"\"\n".write(toFile: marked, atomically: true, encoding: .utf8)
        #expect(try Shell.run([database, "-e", "import T from \(marked)"]).status == 0)
        #expect(try sqlite(database, probe) == "1|NULL|''|NULL|NULL|NULL|NULL|'x'\n2|''|NULL|''|NULL|NULL|NULL|''")

        // In a file that marks its NULLs, an unquoted empty field in a NOT NULL column fails,
        // naming its line.
        let failing = path("failing.csv")
        try "id,t,required\n7,\"\",x\n8,a,\n".write(toFile: failing, atomically: true, encoding: .utf8)
        let f = try Shell.run([database, "-e", "import T from \(failing)"])
        #expect(f.stderr.hasPrefix("error: \(failing), line 3: T: NOT NULL constraint failed: T.required"), "\(f.stderr)")
        #expect(try sqlite(database, "SELECT count(*) FROM T") == "2")

        // tsv: `\N` marks NULL; without it, the same rule as csv.
        _ = try sqlite(database, "DELETE FROM T")
        let tsv = path("plain.tsv")
        try "id\tt\tn\trequired\n1\t\t\t\n".write(toFile: tsv, atomically: true, encoding: .utf8)
        #expect(try Shell.run([database, "-e", "import T from \(tsv)"]).status == 0)
        #expect(try sqlite(database, "SELECT quote(t), quote(n), quote(required) FROM T") == "''|NULL|''")
    }
}
