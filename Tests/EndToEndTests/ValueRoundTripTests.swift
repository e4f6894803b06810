import Foundation
import Testing

/// Every edge value of SQLite through every export format and back by import, compared value
/// for value by SQLite's own `quote()` and `typeof()`: what a format carries comes back as it
/// was, and what it cannot carry is warned about.
@Suite struct ValueRoundTripTests {
    let folder: URL
    let database: String

    /// Every column affinity, and the declared types of a GeoPackage's geometries.
    static let columns = "i INTEGER, r REAL, t TEXT, b BLOB, u, g POINT, n NUMERIC, d DATETIME"
    static let names = ["i", "r", "t", "b", "u", "g", "n", "d"]

    /// Each value is stored in every column, so that each meets every affinity.
    static let edgeValues = [
        "NULL", "''", "X''", "'deadbeef'", "'aGVsbG8='", "'AP8Q'", "'NULL'", "char(92) || 'N'", "'X''00FF'''", "'Inf'", "'5'", "' 7 '",
        "CAST('hello' AS BLOB)", "X'00FF10'", "X'4750000100000000'", "9.0e999", "-9.0e999", "-0.0", "0.0",
        "9223372036854775807", "-9223372036854775808", "0.1 + 0.2", "1e-320", "1e300", "2.0", "5", "1.5",
        "'東京 ☃ é'", "'a,\"b\"' || char(10) || char(9) || 'c' || char(92)", "'2024-01-02 03:04:05'",
    ]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-values-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = folder.appendingPathComponent("values.sqlite").path
        let rows = Self.edgeValues.enumerated().map { index, value in
            "(\(index + 1), " + Self.names.map { _ in value }.joined(separator: ", ") + ")"
        }
        let setUp = try Shell.run([database, "--create",
                                   "-e", "sql CREATE TABLE Edge (id INTEGER PRIMARY KEY, \(Self.columns))",
                                   "-e", "sql CREATE TABLE Copy (id INTEGER PRIMARY KEY, \(Self.columns))",
                                   "-e", "sql INSERT INTO Edge VALUES " + rows.joined(separator: ", ")])
        #expect(setUp.status == 0, "\(setUp.stderr)")
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Each row's values as SQLite quotes them, with their types.
    func typed(_ table: String, columns: [String] = names, where filter: String = "1") throws -> String {
        let cells = columns.map { "quote(\($0)) || ' ' || typeof(\($0))" }.joined(separator: ", ")
        return try Shell.run([database, "--format", "tsv", "-e", "sql SELECT id, \(cells) FROM \(table) WHERE \(filter) ORDER BY id"]).stdout
    }

    @Test(arguments: ["csv", "json", "ndjson"])
    func everyValueSurvives(format: String) throws {
        let file = path("edge.\(format)")
        let run = try Shell.run([database, "-e", "export Edge to \(file)", "-e", "import Copy from \(file)"])
        #expect(run.status == 0)
        #expect(run.stderr == "exported \(Self.edgeValues.count) Edge to \(file)\nimported \(Self.edgeValues.count) Copy\n")
        let original = try typed("Edge")
        #expect(original.contains("'deadbeef' text") && original.contains("X'4750000100000000' blob") && original.contains("Inf real"))
        let written = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(try typed("Copy") == original, "the file:\n\(written)")
    }

    /// tsv has no quotes and no blobs: blobs come back as base64 text, with a warning; every
    /// other value survives in the columns whose declared type decides it.
    @Test func tsvWarnsOfItsBlobs() throws {
        let file = path("edge.tsv")
        let run = try Shell.run([database, "-e", "export Edge to \(file)", "-e", "import Copy from \(file)"])
        #expect(run.status == 0)
        let blobs = try Shell.run([database, "-e", "sql SELECT " + Self.names.map { "(typeof(\($0)) = 'blob')" }.joined(separator: " + ")
                                   + " FROM Edge", "--format", "csv", "--no-header"]).stdout
        let count = blobs.split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
        #expect(count > 0)
        let numbers = try Shell.run([database, "-e", "sql SELECT count(*) FROM Edge, (SELECT 1 AS k UNION ALL SELECT 2) "
                                     + "WHERE typeof(CASE k WHEN 1 THEN b ELSE u END) IN ('integer', 'real')",
                                     "--format", "csv", "--no-header"]).stdout
        #expect(run.stderr == "warning: tsv has no blobs: \(count) blobs were written as base64 text, which import reads back as text "
            + "(csv, json and ndjson keep blobs)\nwarning: tsv has no types: \(numbers.dropLast()) numbers in columns without a type "
            + "(or declared BLOB) will be read back as text (csv, json and ndjson keep them)\n"
            + "exported \(Self.edgeValues.count) Edge to \(file)\nimported \(Self.edgeValues.count) Copy\n")
        let typedColumns = ["i", "r", "t", "n", "d"]
        let noBlobs = "id NOT IN (SELECT id FROM Edge WHERE " + typedColumns.map { "typeof(\($0)) = 'blob'" }.joined(separator: " OR ") + ")"
        #expect(try typed("Copy", columns: typedColumns, where: noBlobs) == typed("Edge", columns: typedColumns, where: noBlobs))
        #expect(try typed("Copy", columns: ["b"], where: "id = 14") == "id\tquote(b) || ' ' || typeof(b)\n14\t'AP8Q' text\n")
    }

    /// A TEXT column that holds NULLs and no empty text (an MBTiles `grid_id`) keeps its NULLs
    /// through csv.
    @Test func csvKeepsNullsApartFromEmptyText() throws {
        let file = path("map.csv")
        let run = try Shell.run([database, "-e", "sql CREATE TABLE map (zoom_level INTEGER, grid_id TEXT)",
                                 "-e", "sql CREATE TABLE map2 (zoom_level INTEGER, grid_id TEXT)",
                                 "-e", "sql INSERT INTO map VALUES (1, NULL), (2, 'g2')",
                                 "-e", "export map to \(file)", "-e", "import map2 from \(file)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "\"zoom_level\",\"grid_id\"\n1,\n2,\"g2\"\n")
        #expect(try Shell.run([database, "--format", "csv", "-e", "sql SELECT quote(grid_id) FROM map2 ORDER BY zoom_level"]).stdout
            == "quote(grid_id)\nNULL\n'g2'\n")
    }

    /// Files not written by export are read as text: nothing that merely looks like an encoding
    /// is decoded, in a BLOB column or any other.
    @Test(arguments: [
        ("csv", "b,u\ndeadbeef,X'00FF'\nNULL,aGVsbG8=\n"),
        ("tsv", "b\tu\ndeadbeef\tX'00FF'\nNULL\taGVsbG8=\n"),
        ("ndjson", "{\"b\": \"deadbeef\", \"u\": \"X'00FF'\"}\n{\"b\": \"NULL\", \"u\": \"aGVsbG8=\"}\n"),
    ])
    func textThatLooksEncodedStaysText(format: String, text: String) throws {
        let file = path("foreign.\(format)")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Shell.run([database, "-e", "import Copy from \(file)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try typed("Copy", columns: ["b", "u"]) == """
            id\tquote(b) || ' ' || typeof(b)\tquote(u) || ' ' || typeof(u)
            1\t'deadbeef' text\t'X''00FF''' text
            2\t'NULL' text\t'aGVsbG8=' text

            """)
    }

    /// An integer past 64 bits would be stored as a rounded REAL in a numeric column: refused,
    /// and nothing is imported; in a TEXT column its digits are kept.
    @Test(arguments: [
        ("csv", "i,t\n1,1\n99999999999999999999,2\n", 3),
        ("tsv", "i\tt\n1\t1\n-99999999999999999999\t2\n", 3),
        ("ndjson", "{\"i\": 1, \"t\": 1}\n{\"i\": 99999999999999999999, \"t\": 2}\n", 2),
        ("json", "[{\"i\": 1, \"t\": 1},\n{\"i\": \"99999999999999999999\", \"t\": 2}]\n", 2),
    ])
    func integersPast64BitsAreRefused(format: String, text: String, line: Int) throws {
        let file = path("big.\(format)")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Shell.run([database, "-e", "import Copy from \(file)"])
        #expect(run.status == 1)
        let number = text.contains("-9999") ? "-99999999999999999999" : "99999999999999999999"
        #expect(run.stderr == "error: \(file), line \(line): i: \(number) is past the range of a 64-bit integer, and would be stored "
            + "rounded to a REAL (write it with an exponent, as 1e20, to store a REAL); nothing was imported\n")
        #expect(try Shell.run([database, "-e", "count Copy"]).stdout == "0\n")
        try "{\"t\": 99999999999999999999}\n".write(toFile: path("text.ndjson"), atomically: true, encoding: .utf8)
        #expect(try Shell.run([database, "-e", "import Copy from \(path("text.ndjson"))"]).status == 0)
        #expect(try typed("Copy", columns: ["t"]) == "id\tquote(t) || ' ' || typeof(t)\n1\t'99999999999999999999' text\n")
    }
}
