import Foundation
import Testing

/// A database whose schema names a collation this program lacks (Anki's `unicase`): it opens,
/// every command works with a stand-in that a note names, and `--copy-to` copies it.
@Suite struct UnknownCollationTests {
    let folder: URL
    let db: String
    let note = "note: the collation 'unicase' is not known here: its texts are compared in Unicode case-insensitive order instead\n"

    /// sqlite3 cannot create a table with a collation it lacks: the schema is written with
    /// NOCASE, then renamed in place (`PRAGMA writable_schema`), as another program would leave it.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("collation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        db = folder.appendingPathComponent("collection.anki2").path
        try Spawn.run("/usr/bin/sqlite3", [db, """
            CREATE TABLE tags (tag TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, usn INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE decks (id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE);
            CREATE UNIQUE INDEX idx_decks_name ON decks (name);
            INSERT INTO tags VALUES ('Verb', 1), ('noun', 2), ('Äpfel', 3);
            INSERT INTO decks VALUES (1, 'Default'), (2, 'spanish');
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'NOCASE', 'unicase') WHERE name IN ('tags', 'decks');
            """])
        #expect(try Spawn.run("/usr/bin/sqlite3", [db, "SELECT count(*) FROM tags"]).isEmpty)
    }

    @Test func aDatabaseWithAnUnknownCollationIsReadWithAStandIn() throws {
        let r = try Shell.run([db, "--format", "csv", "-e", "entities", "-e", "find tags sort by tag",
                               "-e", "count decks where name == \"SPANISH\""])
        #expect(r.stdout == "entity,kind,rows,attributes\ntags,table,3,2\ndecks,table,2,2\ntag,usn\nnoun,2\nVerb,1\nÄpfel,3\n1\n")
        #expect(r.stderr == note)
        #expect(r.status == 0)
    }

    @Test func aDatabaseWithAnUnknownCollationIsCopied() throws {
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let r = try Shell.run([db, "--copy-to", copy])
        #expect(r.status == 0)
        #expect(r.stdout == "tags\t3\ndecks\t2\n")
        #expect(r.stderr == note)
    }
}
