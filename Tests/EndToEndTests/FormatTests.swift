import Foundation
import Testing

/// Every output format, byte for byte against the files in Expected/.
@Suite struct FormatTests {
    static let formats = ["table", "csv", "tsv", "json", "ndjson", "line", "markdown"]
    static let chinookQuery = "find Track where TrackId IN {1, 2, 2918, 3203} sort by TrackId; "
        + "find Customer where CustomerId IN {1, 5, 7, 12} sort by CustomerId"

    @Test(arguments: formats)
    func chinook(format: String) throws {
        let r = try Shell.run([Shell.chinook, "--read-only", "-e", Self.chinookQuery, "--format", format])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == (try Shell.expectedText("chinook.\(format)")))
    }

    @Test func noHeaderAndNullText() throws {
        let r = try Shell.run([Shell.chinook, "-r", "-e", Self.chinookQuery, "--format", "csv", "--no-header", "--null", "<null>"])
        #expect(r.stdout == (try Shell.expectedText("chinook-noheader-null.csv")))
    }

    /// Control characters, a blob, wide characters, invalid UTF-8, a huge real.
    @Test(arguments: ["table", "csv", "tsv", "json", "line", "markdown"])
    func oddValues(format: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-odd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("odd.sqlite").path
        let setup = try Shell.run([db, "--create", "-e", """
            sql CREATE TABLE Odd (Id INTEGER PRIMARY KEY, Label TEXT, Data BLOB, Score REAL)
            sql INSERT INTO Odd VALUES (1, 'bell'||char(7)||' esc'||char(27)||'[31mred', X'00FF10', 1.5), (2, '東京タワー wide', NULL, -2.0), (3, CAST(X'41FF42' AS TEXT), X'', NULL), (4, 'tab'||char(9)||'new'||char(10)||'line|pipe', NULL, 1e300)
            """])
        #expect(setup.status == 0)
        let r = try Shell.run([db, "-e", "find Odd sort by Id", "--format", format])
        #expect(r.status == 0)
        #expect(r.stdout == (try Shell.expectedText("odd.\(format)")))
        if format == "table" || format == "line" {
            #expect(!r.stdout.contains("\u{1B}"), "ESC must never be written raw in \(format)")
        }
    }

    @Test func defaultFormatOffATerminalIsTSV() throws {
        let r = try Shell.run([Shell.chinook, "-r", "-e", "find Genre where GenreId == 1"])
        #expect(r.stdout == "GenreId\tName\n1\tRock\n")
    }
}
