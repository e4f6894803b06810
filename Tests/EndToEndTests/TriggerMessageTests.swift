import Foundation
import Testing

/// What a trigger's RAISE says, and a STRICT table's type error, reach the user in words, from
/// a command and from raw `sql`, and nothing is written.
@Suite struct TriggerMessageTests {
    let db: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("triggers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        db = folder.appendingPathComponent("raise.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [db, """
            CREATE TABLE amount (id INTEGER PRIMARY KEY, value INTEGER) STRICT;
            CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT);
            CREATE TRIGGER no_secrets BEFORE INSERT ON note WHEN NEW.body LIKE '%secret%'
              BEGIN SELECT RAISE(ABORT, 'notes must not hold secrets'); END;
            CREATE TRIGGER keep_one BEFORE DELETE ON note WHEN (SELECT count(*) FROM note) = 1
              BEGIN SELECT RAISE(FAIL, 'the last note stays'); END;
            INSERT INTO amount VALUES (1, 10);
            INSERT INTO note VALUES (1, 'only');
            """])
    }

    func rows() throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [db, "SELECT (SELECT group_concat(value) FROM amount) || '|' || (SELECT group_concat(body) FROM note)"])
    }

    @Test func aTriggersRaiseIsTheMessage() throws {
        let create = try Shell.run([db, "-e", "create note set body = \"a secret\""])
        #expect(create.stderr == "error: note: a trigger refused the change: notes must not hold secrets; nothing was written\n")
        #expect(create.status == 1)
        let delete = try Shell.run([db, "-e", "delete note where id == 1"])
        #expect(delete.stderr.hasPrefix("error: note: a trigger refused the change: the last note stays; nothing was written\n"))
        let sql = try Shell.run([db, "-e", "sql INSERT INTO note (body) VALUES ('secret plans')"])
        #expect(sql.stderr == "error: a trigger refused the change: notes must not hold secrets\n")
        #expect(try rows() == "10|only\n")
    }

    @Test func aStrictTablesTypeErrorIsTheMessage() throws {
        let update = try Shell.run([db, "-e", "update amount set value = \"ten\" where id == 1"])
        #expect(update.stderr.hasPrefix("error: amount: cannot store TEXT value in INTEGER column amount.value; nothing was written\n"))
        #expect(update.status == 1)
        let sql = try Shell.run([db, "-e", "sql INSERT INTO amount (value) VALUES ('eleven')"])
        #expect(sql.stderr == "error: cannot store TEXT value in INTEGER column amount.value\n")
        #expect(try rows() == "10|only\n")
    }
}
