import Foundation
import Testing

/// Issue 11, points 1–5: what `find`, `schema`, `entities`, `create` and `export` print.
@Suite struct Issue11OutputTests {
    /// A fresh folder with an empty database in it.
    static func emptyDatabase() throws -> (folder: URL, database: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("issue11-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("db.sqlite").path)
    }

    @Test func issue11_point1_tableFormatNeverCutsNumbers() throws {
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
    func issue11_point4_aFailedCommandPrintsNothing(format: String) throws {
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

    @Test func issue11_point5_exportToDashIsStandardOutputAndAnUnknownExtensionIsRefused() throws {
        let (folder, db) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dash = try Shell.run(["-e", "export Genre where GenreId < 3 sort by GenreId to - as json", db])
        #expect(dash.status == 0, "\(dash.stderr)")
        #expect(dash.stdout == "[\n{\"GenreId\":1,\"Name\":\"Rock\"},\n{\"GenreId\":2,\"Name\":\"Jazz\"}\n]\n")
        #expect(!FileManager.default.fileExists(atPath: "-"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
        let csv = try Shell.run(["-e", "export Genre where GenreId == 1 to -", db])
        #expect(csv.stdout == "GenreId,Name\n1,Rock\n")

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
}
