import Foundation
import PortalCoreData
import PortalEngine
import Testing

/// A delete that keeps what it removed, put back by `restore`: every column of every table is as
/// it was before the delete, on Core Data stores (cascades, nullified relationships, join rows,
/// raised `Z_OPT`, `Z_MAX` untouched) and on a plain database.
@Suite struct DeleteRestoreTests {
    /// Every row of every table, every column, in rowid order.
    func everything(_ raw: Store) throws -> [String: [[Value]]] {
        try raw.read { ctx in
            let tables = try ctx.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .rows.compactMap { row -> String? in if case .text(let name) = row.value(at: 0) { name } else { nil } }
            var all: [String: [[Value]]] = [:]
            for table in tables {
                // Sorted here: a WITHOUT ROWID table has no rowid to order by.
                all[table] = try ctx.query("SELECT * FROM \"\(table)\"").rows.map(\.values).sorted { "\($0)" < "\($1)" }
            }
            return all
        }
    }

    /// The tables whose rows differ between two reads of `everything`.
    func changedTables(_ before: [String: [[Value]]], _ after: [String: [[Value]]]) -> [String] {
        Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
    }

    /// A folder whose delete cascades to its sub-folders and notes, and nullifies what pointed to
    /// them: restored, the store is as it was.
    @Test func aCascadingCoreDataDeleteIsRestoredWhole() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        let before = try everything(raw)
        let deleted = try model.write { ctx in try ctx.deleteKeepingRows("ICFolder", where: .predicate("title == 'Folder2'", [])) }
        #expect(deleted.matched == 1)
        #expect(deleted.removedRows > 3)
        let afterDelete = try everything(raw)
        #expect(changedTables(before, afterDelete).contains("ZICCLOUDSYNCINGOBJECT"))
        try model.write { ctx in try ctx.restore(deleted) }
        #expect(changedTables(before, try everything(raw)) == [])
        try CoreDataWriteTests().expectConsistent(raw)
    }

    /// A folder of albums (an ordered relationship, nullified: the albums get their parent,
    /// position and `Z_OPT` back), and an album in a folder's list (its join rows return).
    @Test(arguments: [("Folder", Int64(19), ["ZGENERICALBUM"]), ("FetchingAlbum", Int64(38), ["ZGENERICALBUM", "Z_25ALBUMLISTS"])])
    func nullifiedRelationshipsAndJoinRowsAreRestored(entity: String, key: Int64, changed: [String]) throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.photos, folder)
        let before = try everything(raw)
        let deleted = try model.write { ctx in try ctx.deleteKeepingRows(entity, where: .id([.integer(key)])) }
        #expect(deleted.matched == 1)
        #expect(Set(changedTables(before, try everything(raw))).isSuperset(of: changed))
        try model.write { ctx in try ctx.restore(deleted) }
        #expect(changedTables(before, try everything(raw)) == [])
        #expect(try raw.read { ctx in try ctx.query("PRAGMA integrity_check").rows.first?.value(at: 0) } == "ok")
    }

    /// A restore of a row whose key was given again since fails and writes nothing.
    @Test func aRestoreOverANewRowWithTheSameKeyFails() throws {
        let store = try Store(path: ":memory:")
        try store.write { ctx in
            try ctx.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            try ctx.execute("INSERT INTO t VALUES (1, 'one')")
        }
        let deleted = try store.write { ctx in try ctx.deleteKeepingRows("t", where: .id([.integer(1)])) }
        try store.write { ctx in try ctx.execute("INSERT INTO t VALUES (1, 'new')") }
        #expect(throws: PortalError.self) { try store.write { ctx in try ctx.restore(deleted) } }
        #expect(try store.read { ctx in try ctx.query("SELECT name FROM t").rows.map(\.values) } == [["new"]])
    }

    /// On a plain database the rows come back with their keys: a table keyed by its rowid alone
    /// (the rowid kept; its generated column computed again), and one with a declared key.
    @Test func plainRowsAreRestoredWithTheirKeys() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("plain.sqlite")
        let store = try Store(path: path)
        try store.write { ctx in
            try ctx.execute("CREATE TABLE notes (title TEXT, body BLOB, score REAL, shout TEXT GENERATED ALWAYS AS (upper(title)))")
            try ctx.execute("INSERT INTO notes VALUES ('a', x'00ff', 1.5), ('b', NULL, 2), ('c', x'', NULL)")
            try ctx.execute("DELETE FROM notes WHERE title = 'a'")   // rowids 2 and 3 remain
            try ctx.execute("CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID")
            try ctx.execute("INSERT INTO tags VALUES ('x', 1), ('y', 2)")
        }
        let before = try everything(store)
        let notes = try store.write { ctx in try ctx.deleteKeepingRows("notes", where: .predicate("title == 'c'", [])) }
        let tags = try store.write { ctx in try ctx.deleteKeepingRows("tags", where: .all) }
        #expect(notes.matched == 1 && tags.matched == 2)
        #expect(changedTables(before, try everything(store)) == ["notes", "tags"])
        try store.write { ctx in
            try ctx.restore(tags)
            try ctx.restore(notes)
        }
        #expect(changedTables(before, try everything(store)) == [])
        #expect(try store.read { ctx in try ctx.query("SELECT rowid FROM notes WHERE title = 'c'").rows.first?.value(at: 0) } == 3)
    }
}

extension DeleteRestoreTests {
    /// A row put back would fire a trigger calling Core Data's own functions (made since the
    /// delete): the restore is refused before anything is written.
    @Test func aRestoreThatWouldFireCoreDataTriggersIsRefused() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        let deleted = try model.write { ctx in try ctx.deleteKeepingRows("ICFolder", where: .predicate("title == 'Folder2'", [])) }
        try raw.write { ctx in
            try ctx.execute("CREATE TRIGGER ZQ_ADDED AFTER INSERT ON ZICCLOUDSYNCINGOBJECT FOR EACH ROW BEGIN "
                            + "SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(NEW.Z_PK); END")
        }
        let afterDelete = try everything(raw)
        do {
            try model.write { ctx in try ctx.restore(deleted) }
            Issue.record("the restore was not refused")
        } catch let error as PortalError {
            #expect(error.kind == .notWritable && error.message.contains("the trigger ZQ_ADDED"), "\(error)")
        }
        #expect(changedTables(afterDelete, try everything(raw)) == [])
    }
}
