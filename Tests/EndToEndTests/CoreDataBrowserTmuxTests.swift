import Foundation
import PortalCoreData
import Testing

/// The browser's edits, adds and deletes on a Core Data store go through the engine's writes
/// (Z_PK, Z_MAX, Z_OPT, delete rules), and `u` undoes them; each step checked in the raw table.
@Suite(.serialized) struct CoreDataBrowserTmuxTests {
    let t = "ZICCLOUDSYNCINGOBJECT"

    func session(_ name: String = "NoteStore-macOS-12-Monterey.sqlite") throws -> BrowserSession {
        let s = try BrowserSession(copyChinook: false)
        try FileManager.default.copyItem(atPath: CoreDataShellTests.fixtures.appendingPathComponent(name).path, toPath: s.database)
        return s
    }

    /// The 1-based position of `attribute` among `entity`'s attributes, as `schema` lists them
    /// (the browser's columns and the add form's fields, in that order).
    func position(_ s: BrowserSession, _ entity: String, _ attribute: String) throws -> Int {
        let lines = try Spawn.run(Shell.binary, [s.database, "--format", "tsv", "--no-header", "-e", "schema \(entity)"])
        let attributes = lines.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return fields.count > 2 && fields[1] == "attributes" ? String(fields[2]) : nil
        }
        return try #require(attributes.firstIndex(of: attribute), "\(entity).\(attribute) in \(attributes)") + 1
    }

    /// `sql` on the raw tables, as tab-separated lines.
    func raw(_ s: BrowserSession, _ sql: String) throws -> String {
        try Spawn.run(Shell.binary, ["--raw", s.database, "--format", "tsv", "--no-header", "-e", "sql " + sql])
    }

    @Test(arguments: CoreDataShellTests.notesStores)
    func editsAddsDeletesAndUndoesKeepingTheBookkeeping(name: String) throws {
        let s = try session(name)
        try s.shell(#"create ICHashtag set displayText = "tag one""#)
        let key = try raw(s, "SELECT Z_PK FROM \(t) WHERE ZDISPLAYTEXT = 'tag one'").trimmingCharacters(in: .newlines)
        // displayText comes after ICCloudSyncingObject's attributes (more of them on newer systems).
        let column = try position(s, "ICHashtag", "displayText")
        let toDisplayText = String(repeating: "l", count: column - 1)
        // The store's own hashtags (the newer ones have some) are left out of view.
        try s.start(["--entity", "ICHashtag", "--where", #"displayText BEGINSWITH "tag ""#], width: 120)
        try s.waitFor("ICHashtag  1 rows")
        try s.editCell(moving: toDisplayText, to: "tag two", saying: "updated ICHashtag.displayText")
        #expect(try raw(s, "SELECT Z_PK, Z_ENT, Z_OPT, ZDISPLAYTEXT FROM \(t) WHERE Z_PK = \(key)") == "\(key)\t7\t2\ttag two\n")
        try s.type("u")
        try s.waitFor("undone: update of ICHashtag.displayText")
        #expect(try raw(s, "SELECT Z_PK, Z_OPT, ZDISPLAYTEXT FROM \(t) WHERE Z_PK = \(key)") == "\(key)\t3\ttag one\n")

        // A delete that changes no other row is put back as it was stored.
        let stored = try raw(s, "SELECT * FROM \(t) WHERE Z_PK = \(key)")
        try s.type("d")
        try s.waitFor("? y/n")
        try s.type("y")
        try s.waitFor("ICHashtag  0 rows")
        #expect(try raw(s, "SELECT count(*) FROM \(t) WHERE Z_PK = \(key)") == "0\n")
        try s.type("u")
        try s.waitFor("ICHashtag  1 rows")
        #expect(try raw(s, "SELECT * FROM \(t) WHERE Z_PK = \(key)") == stored)

        // A new row takes Z_MAX + 1, its Z_ENT and Z_OPT 1; undo deletes it.
        try s.type("a")
        try s.waitFor("(default)")
        for _ in 0..<(column - 1) { try s.press("Down") }
        try s.type("tag three")
        try s.press("Enter")
        try s.waitFor("created ICHashtag")
        try s.waitFor("ICHashtag  2 rows")
        let max = try raw(s, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2").trimmingCharacters(in: .newlines)
        #expect(try raw(s, "SELECT Z_PK, Z_ENT, Z_OPT FROM \(t) WHERE ZDISPLAYTEXT = 'tag three'") == "\(max)\t7\t1\n")
        try s.type("u")
        try s.waitFor("undone: creation in ICHashtag")
        #expect(try raw(s, "SELECT count(*) FROM \(t) WHERE ZDISPLAYTEXT = 'tag three'") == "0\n")
        #expect(try raw(s, "PRAGMA integrity_check") == "ok\n")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// A folder's delete cascades to its notes: done by the model's rules, and undo puts the
    /// folder and its notes back, every column of every row as it was.
    @Test func aCascadingDeleteIsUndoneWhole() throws {
        let s = try session()
        let notes = try raw(s, "SELECT count(*) FROM \(t) WHERE Z_ENT = 11 AND ZFOLDER = 4")
        #expect(notes != "0\n")
        let before = try raw(s, "SELECT * FROM \(t) ORDER BY Z_PK")
        try s.start(["--entity", "ICFolder", "--where", #"title == "Notes""#], width: 160)
        try s.waitFor("ICFolder  1 rows")
        try s.type("d")
        try s.waitFor("? y/n")
        try s.type("y")
        try s.waitFor("ICFolder  0 rows")
        #expect(try raw(s, "SELECT count(*) FROM \(t) WHERE Z_PK = 4 OR ZFOLDER = 4") == "0\n")
        try s.type("u")
        try s.waitFor("undone: deletion in ICFolder")
        try s.waitFor("ICFolder  1 rows")
        #expect(try raw(s, "SELECT * FROM \(t) ORDER BY Z_PK") == before)
        #expect(try raw(s, "PRAGMA integrity_check") == "ok\n")
    }
}
