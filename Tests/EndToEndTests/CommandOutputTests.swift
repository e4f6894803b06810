import Foundation
import Testing

/// What `find`, `schema`, `entities`, `create` and `export` print.
@Suite struct CommandOutputTests {
    /// A fresh folder with an empty database in it.
    static func emptyDatabase() throws -> (folder: URL, database: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("command-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("db.sqlite").path)
    }

    @Test func tableFormatNeverCutsNumbers() throws {
        let (folder, db) = try Self.emptyDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 150 small ids fix the widths; the later ids and amounts are far wider.
        let setup = try Shell.run([db, "--create", "-e", """
            sql CREATE TABLE Big (Id INTEGER PRIMARY KEY, Amount REAL, Label TEXT)
            sql WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) INSERT INTO Big SELECT i, i, 'x' FROM n
            sql INSERT INTO Big VALUES (1234567890123, 98765432.125, 'a label far wider than the two letters of the sample rows, more than fifty')
            """])
        #expect(setup.status == 0, "\(setup.stderr)")
        let r = try Shell.run([db, "-e", "find Big sort by Id", "--format", "table"])
        #expect(r.status == 0)
        let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("1234567890123"), "the id is whole: \(last)")
        #expect(last.contains("98765432.125"), "the amount is whole: \(last)")
        #expect(!r.stdout.contains("12…") && !r.stdout.contains("98…"))
        #expect(last.contains("…"), "text may still be cut: \(last)")
    }

    @Test(arguments: ["table", "csv", "json"])
    func aFailedCommandPrintsNothing(format: String) throws {
        let (folder, db) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A key that exists: the insert fails after the header was begun.
        let create = try Shell.run([db, "-e", "create Genre set GenreId = 1, Name = \"Again\"", "--format", format])
        #expect(create.status != 0)
        #expect(create.stdout == "", "stdout of a failed create: \(create.stdout)")
        #expect(create.stderr.contains("UNIQUE") || create.stderr.contains("constraint"), "\(create.stderr)")
        // A runtime error after the first row.
        let sql = try Shell.run([db, "-e", "sql SELECT 1 AS n UNION ALL SELECT abs(-9223372036854775807 - 1)", "--format", format])
        #expect(sql.status != 0)
        #expect(sql.stdout == "", "stdout of a failed sql: \(sql.stdout)")
    }

    @Test func exportToDashIsStandardOutputAndAnUnknownExtensionIsRefused() throws {
        let (folder, db) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dash = try Shell.run(["-e", "export Genre where GenreId < 3 sort by GenreId to - as json", db])
        #expect(dash.status == 0, "\(dash.stderr)")
        #expect(dash.stdout == "[\n{\"GenreId\":1,\"Name\":\"Rock\"},\n{\"GenreId\":2,\"Name\":\"Jazz\"}\n]\n")
        #expect(!FileManager.default.fileExists(atPath: "-"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
        let csv = try Shell.run(["-e", "export Genre where GenreId == 1 to -", db])
        #expect(csv.stdout == "\"GenreId\",\"Name\"\n1,\"Rock\"\n")

        let xlsx = folder.appendingPathComponent("g.xlsx").path
        let refused = try Shell.run(["-e", "export Genre to \(xlsx)", db])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains(".xlsx") && refused.stderr.contains("as csv") && refused.stderr.contains("as ndjson"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: xlsx))
        let named = try Shell.run(["-e", "export Genre to \(xlsx) as tsv", db])
        #expect(named.status == 0)
        #expect(FileManager.default.fileExists(atPath: xlsx))
    }

    /// Parses `text` as `format` with python3's json and csv modules; the parsed records, or
    /// a description of why it does not parse.
    static func parse(_ text: String, as format: String) throws -> String {
        let script = """
            import sys, json, csv, io
            fmt, text = sys.argv[1], sys.stdin.read()
            if fmt == "json":
                json.loads(text)
            elif fmt == "ndjson":
                for line in text.splitlines(): json.loads(line)
            else:
                rows = list(csv.reader(io.StringIO(text), delimiter="\\t" if fmt == "tsv" else ",",
                                       quoting=csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL, strict=True))
                widths = {len(r) for r in rows}
                if len(widths) > 1: sys.exit("rows of different lengths: %s" % sorted(widths))
            print("ok")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, format]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: out + err, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every command that prints data, in every data format, parses with a real parser.
    @Test(arguments: ["json", "ndjson", "csv", "tsv"])
    func everyCommandPrintsItsFormat(format: String) throws {
        let (folder, db) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands = [
            "find Track where TrackId < 4", "first Genre", "count Genre", "get Genre 1", "entities",
            "schema Track", "schema", "schema Album sql", "schema sql", "sql SELECT 1 AS a, 'x' AS b",
            "explain find Track where Genre.Name == 'Rock'", "let $x = 1; vars", "create Genre set Name = 'New, \"quoted\"'",
            "export Genre to - as \(format)",
        ]
        for command in commands {
            let r = try Shell.run([db, "-e", command, "--format", format])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(!r.stdout.isEmpty, "\(command) printed nothing")
            #expect(try Self.parse(r.stdout, as: format) == "ok", "\(command) as \(format):\n\(r.stdout.prefix(400))")
        }
    }

    @Test func schemaAsJSONIsOneObject() throws {
        let r = try Shell.run([Shell.chinook, "-r", "-e", "schema Album", "--format", "json"])
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(object?["entity"] as? String == "Album")
        let attributes = object?["attributes"] as? [[String: Any]]
        #expect(attributes?.map { $0["name"] as? String } == ["AlbumId", "Title", "ArtistId"])
        #expect(attributes?.first?["nullable"] as? Bool == false)
        #expect(attributes?.first?["default"] is NSNull)
        #expect((object?["relationships"] as? [[String: Any]])?.count == 2)
        #expect((object?["indexes"] as? [[String: Any]])?.first?["columns"] as? [String] == ["ArtistId"])
        let all = try Shell.run([Shell.chinook, "-r", "-e", "schema", "--format", "json"])
        #expect((try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [Any])?.count == 11)
    }

    @Test func schemaShowsDDLChecksTriggersGeneratedColumnsAndWithoutRowid() throws {
        let (folder, db) = try Self.emptyDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let setup = try Shell.run([db, "--create", "-e", """
            sql CREATE TABLE Item (Id INTEGER PRIMARY KEY, Price REAL NOT NULL CHECK (Price >= 0), Qty INTEGER, Total REAL GENERATED ALWAYS AS (Price * Qty) VIRTUAL, Label TEXT, CONSTRAINT sane CHECK (length(Label) < 100))
            sql CREATE TABLE Kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID
            sql CREATE TRIGGER ItemLog AFTER INSERT ON Item BEGIN UPDATE Item SET Qty = 1 WHERE Id = new.Id AND Qty IS NULL; END
            """])
        // Until `sql` keeps a trigger's inner `;` (another point of this issue), the trigger may fail: made here if so.
        if !setup.stderr.isEmpty {
            _ = try Spawn.run("/usr/bin/env", ["sqlite3", db, "CREATE TABLE IF NOT EXISTS Kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID; "
                + "CREATE TRIGGER IF NOT EXISTS ItemLog AFTER INSERT ON Item BEGIN\n  UPDATE Item SET Qty = 1 WHERE Id = new.Id AND Qty IS NULL;\nEND;"])
        }
        let r = try Shell.run([db, "-e", "schema Item", "--format", "table"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("NULL"), "no NULL for 'no default' or 'no id':\n\(r.stdout)")
        #expect(r.stdout.contains("generated"))
        #expect(r.stdout.contains("| virtual"))
        #expect(r.stdout.contains("CHECK (Price >= 0)"))
        #expect(r.stdout.contains("CHECK (length(Label) < 100)"))
        #expect(r.stdout.contains("ItemLog"))
        let kv = try Shell.run([db, "-e", "schema Kv", "--format", "table"])
        #expect(kv.stdout.hasPrefix("Kv (table, without rowid)\n"))
        let sql = try Shell.run([db, "-e", "schema Item sql", "--format", "table"])
        #expect(sql.stdout.hasPrefix("CREATE TABLE Item (Id INTEGER PRIMARY KEY,"), "\(sql.stdout)")
        #expect(sql.stdout.contains("CREATE TRIGGER ItemLog AFTER INSERT ON Item BEGIN"))
        #expect(sql.stdout.contains(");\n"))
        let flag = try Shell.run([db, "-e", "schema Kv --sql", "--format", "table"])
        #expect(flag.stdout == "CREATE TABLE Kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID;\n")
        // Real newlines in the SQL, as written.
        let chinook = try Shell.run([Shell.chinook, "-r", "-e", "schema Genre sql", "--format", "table"])
        #expect(chinook.stdout.hasPrefix("CREATE TABLE [Genre]\n(\n    [GenreId] INTEGER  NOT NULL,"), "\(chinook.stdout)")
    }
}
