import Foundation
import Testing
import PortalEngine
import PortalPostgres

/// The round-trip matrix on PostgreSQL: a table of every common type and edge value (NULL, '',
/// bytea that looks like text, text that looks like base64 or like NULL, ±Infinity, NaN, -0,
/// ±2⁶³, 0.1+0.2, a subnormal, numeric with 30 digits and trailing zeros, timestamptz in three
/// zones, unicode, jsonb, arrays, booleans, UUIDs) through display, filters, every export format
/// and back, and `--copy-to` SQLite and back, each value compared with the server's own text
/// (`::text`, as psql shows it) and SQLite's `quote()`. What a format cannot carry is named
/// (tsv's bytes, with the warning it gives). Part of the serialized PostgresShellTests.
extension PostgresShellTests {
    private static let matrixColumns = ["t", "b", "f", "n", "i", "ts", "j", "a", "ok", "u"]

    private func matrixOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("""
            ALTER DATABASE \(PostgresDialect().quoted(target.name)) SET timezone = 'America/St_Johns';
            CREATE TABLE m (id int PRIMARY KEY, t text, b bytea, f float8, n numeric(40,10), i bigint, ts timestamptz,
                            j jsonb, a text[], ok boolean, u uuid);
            INSERT INTO m VALUES
             (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             (2, '', '\\x', '-0', 0.00, -9223372036854775808, '2026-03-01 09:00:00+05:30', '{}', '{}', false,
                 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'),
             (3, 'aGVsbG8=', 'hello', 'Infinity', 12345678901234567890.0123456780, 9223372036854775807,
                 '2026-07-01 12:00:00-02:30', '{"a": [1, 2.50, "x"]}', '{a,"b c",NULL}', true, NULL),
             (4, 'Zürich 😀', '\\x00ff', '-Infinity', -0.0000000001, 0, '2026-01-01 00:00:00+00', '"NULL"', '{""}', NULL, NULL),
             (5, 'NULL', 'NULL', 'NaN', 4.10, 1, NULL, 'null', NULL, NULL, NULL),
             (6, 'deadbeef', '\\xdeadbeef', 0.30000000000000004, 1e-10, -1, NULL, '1e400', NULL, NULL, NULL),
             (7, 'X''00''', '\\x2c', 1e-320, 99999999999999999999999999999.9999999999, 2, NULL, '[1.0, -0]', NULL, NULL, NULL);
            """)
        return target
    }

    /// Every row of `table` as the server's text of each value (NULL apart from every text).
    private func serverText(_ target: CopyToTests.TargetDatabase, _ table: String, _ columns: [String]) throws -> [[Value]] {
        try target.rows("SELECT id, " + columns.map { "coalesce(\($0)::text, '<NULL>')" }.joined(separator: ", ")
                        + " FROM \(table) ORDER BY id")
    }

    @Test func everyValueIsShownAndFoundAsPsqlHasIt() throws {
        let target = try matrixOnServer()
        // Shown as psql shows them: the columns whose text is the server's.
        let shownColumns = ["t", "n", "i", "ts", "j", "a", "u"]
        let display = try Shell.run([target.url, "-e", "mode tsv", "-e", "find m select id, \(shownColumns.joined(separator: ", ")) sort by id"])
        let server = try target.rows("SELECT id::text, " + shownColumns.map { "coalesce(\($0)::text, '')" }.joined(separator: ", ")
                                     + " FROM m ORDER BY id")
        let expected = (["id\t" + shownColumns.joined(separator: "\t")] + server.map { row in
            row.map { if case .text(let text) = $0 { text } else { "?" } }.joined(separator: "\t")
        }).joined(separator: "\n") + "\n"
        #expect(display.stdout == expected, "\(display.stderr)")
        // Each value written as shown finds its row.
        var commands: [String] = []
        for row in try target.rows("SELECT id, t, n::text, i::text, ts::text FROM m ORDER BY id") {
            if case .text(let t) = row[1] {
                commands.append("count m where t == \"" + t.replacingOccurrences(of: "\"", with: "\\\"") + "\"")
            }
            if case .text(let n) = row[2] { commands.append("count m where n == \(n)") }
            if case .text(let i) = row[3] { commands.append("count m where i == \(i)") }
            if case .text(let ts) = row[4] { commands.append("count m where ts == '\(ts)'") }
        }
        let counts = [String](repeating: "1", count: commands.count)
        let found = try Shell.run([target.url] + commands.flatMap { ["-e", $0] })
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.split(separator: "\n").map(String.init) == counts, "\(commands)")
    }

    @Test func everyValueSurvivesEveryExportFormatAndImport() throws {
        let target = try matrixOnServer()
        let server = try PostgresConnection("dbname=\(target.name)")
        let (folder, _) = try Shell.chinookCopy()
        let columns = Self.matrixColumns
        let original = try serverText(target, "m", columns)
        for format in ["json", "ndjson", "csv", "tsv"] {
            let file = folder.appendingPathComponent("m.\(format)").path
            try server.execute("DROP TABLE IF EXISTS m2; CREATE TABLE m2 (LIKE m)")
            // Exported and imported in another time zone than the database's.
            let export = try Shell.run([target.url, "-e", "export m to \(file)"], environment: ["PGTZ": "Asia/Kolkata"])
            let imported = try Shell.run([target.url, "-e", "import m2 from \(file)"])
            #expect(export.status == 0 && imported.status == 0, "\(format): \(export.stderr) \(imported.stderr)")
            // tsv has no bytes: said, and its bytea column comes back as the base64 text's bytes.
            let kept = format == "tsv" ? columns.filter { $0 != "b" } : columns
            #expect(try serverText(target, "m2", kept) == serverText(target, "m", kept), "\(format)")
            if format == "tsv" { #expect(export.stderr.contains("base64"), "\(export.stderr)") }
        }
        #expect(try serverText(target, "m", columns) == original)
    }

    @Test func everyValueSurvivesCopyToSQLiteAndBack() throws {
        let target = try matrixOnServer()
        let (folder, _) = try Shell.chinookCopy()
        let file = folder.appendingPathComponent("matrix.sqlite").path
        let down = try Shell.run([target.url, "--copy-to", file])
        #expect(down.status == 0, "\(down.stderr)")
        // The digits SQLite's REAL cannot keep are named.
        #expect(down.stderr.contains("m.n: 2 numeric values have more digits than SQLite's REAL keeps"), "\(down.stderr)")
        // Text, bytes and integers exactly, as SQLite's quote() shows them.
        let quoted = try CopyToTests().sqliteRows(file, "SELECT id, quote(t), quote(b), quote(i), typeof(f) FROM m ORDER BY id")
        #expect(quoted.map { $0.map { if case .text(let s) = $0 { s } else if case .integer(let n) = $0 { String(n) } else { "?" } } } == [
            ["1", "NULL", "NULL", "NULL", "null"],
            ["2", "''", "X''", "-9223372036854775808", "real"],
            ["3", "'aGVsbG8='", "X'68656C6C6F'", "9223372036854775807", "real"],
            ["4", "'Zürich 😀'", "X'00FF'", "0", "real"],
            // SQLite keeps NaN as NULL.
            ["5", "'NULL'", "X'4E554C4C'", "1", "null"],
            ["6", "'deadbeef'", "X'DEADBEEF'", "-1", "real"],
            ["7", "'X''00'''", "X'2C'", "2", "real"],
        ])
        let back = try CopyToTests.TargetDatabase()
        let up = try Shell.run([file, "--copy-to", back.url])
        #expect(up.status == 0, "\(up.stderr)")
        let kept = ["t", "b", "i"]
        #expect(try serverText(back, "m", kept) == serverText(target, "m", kept))
        // Doubles as they were, but for SQLite's own: NaN is NULL, -0 is 0 in a REAL column.
        #expect(try back.rows("SELECT string_agg(coalesce(f::text, 'NULL'), ' ' ORDER BY id) FROM m")
                == [[.text("NULL 0 Infinity -Infinity NULL 0.30000000000000004 1e-320")]])
    }
}
