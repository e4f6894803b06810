import Foundation
import Testing

/// A virtual table (FTS5) is listed as one, and searched with its index through `sql`.
@Suite struct VirtualTableTests {
    @Test func aFullTextTableIsListedAsAVirtualTable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("virtual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent("fts.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [db, """
            CREATE VIRTUAL TABLE docs USING fts5(title, body);
            INSERT INTO docs VALUES ('first', 'the quick brown fox'), ('second', 'a lazy dog');
            """])
        let r = try Shell.run([db, "--format", "csv", "-e", "entities", "-e", "sql SELECT title FROM docs WHERE docs MATCH 'fox'"])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "entity,kind,rows,attributes")
        #expect(lines.dropFirst().first == "docs,virtual table,2,2")
        #expect(lines.suffix(2) == ["title", "first"])
        #expect(r.status == 0)
    }
}
