import Foundation
import Testing

/// The browser works on the session's own store (a transaction is a handle): it leaves
/// the file's journal mode alone, and inside `begin … commit` it shows and writes the
/// transaction's uncommitted rows.
@Suite(.serialized) struct SharedStoreTests {
    func sqlite(_ database: String, _ sql: String) throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Browsing and editing a rollback-journal database leaves it one (it used to become WAL).
    @Test func theBrowserKeepsARollbackJournalDatabaseInItsMode() throws {
        let s = try BrowserSession()
        #expect(try sqlite(s.database, "PRAGMA journal_mode") == "delete")
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.editCell(moving: "l", to: "Rock and Roll", saying: "updated Genre.Name")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
        #expect(try sqlite(s.database, "PRAGMA journal_mode") == "delete")
        #expect(!FileManager.default.fileExists(atPath: s.database + "-wal"))
        #expect(try sqlite(s.database, "SELECT count(*) FROM Genre WHERE Name = 'Rock and Roll'") == "1")
    }

    /// `begin`, then `browse`: the browser shows the uncommitted row, its edit joins the
    /// transaction, and `rollback` at the prompt undoes both.
    @Test func browseInsideATransactionShowsItAndRollbackUndoesTheEdits() throws {
        let (home, database) = try Shell.chinookCopy()
        let session = try TmuxSession(arguments: [database, "--no-init"], home: home)
        try session.waitFor("chinook>")
        try session.type("begin; create Genre set Name = 'Uncommitted'\n")
        try session.waitFor("chinook*>")
        try session.type("browse Genre\n")
        try session.waitFor("Genre  26 rows")
        try session.type("G")
        try session.waitFor("Uncommitted")
        try session.type("gle")   // the first row's Name
        try session.press("C-u")
        try session.type("Edited in the transaction")
        try session.press("Enter")
        try session.waitFor("updated Genre.Name")
        // Nothing is committed: another process sees the file as it was.
        #expect(try sqlite(database, "SELECT count(*) FROM Genre") == "25")
        try session.type("q")
        try session.waitFor("chinook*>")
        try session.type("rollback\n")
        try session.waitFor("chinook>")
        try session.type("quit\n")
        #expect(try session.waitForExit())
        #expect(try sqlite(database, "SELECT count(*) FROM Genre") == "25")
        #expect(try sqlite(database, "SELECT Name FROM Genre WHERE GenreId = 1") == "Rock")
        #expect(try sqlite(database, "PRAGMA journal_mode") == "delete")
    }

    /// `:commit` typed in the browser commits the session's transaction.
    @Test func commitFromTheBrowsersCommandLine() throws {
        let (home, database) = try Shell.chinookCopy()
        let session = try TmuxSession(arguments: [database, "--no-init"], home: home)
        try session.waitFor("chinook>")
        try session.type("begin; create Genre set Name = 'Committed from the browser'\n")
        try session.waitFor("chinook*>")
        try session.type("browse Genre\n")
        try session.waitFor("Genre  26 rows")
        try session.type(":commit\n")
        try session.waitFor("Genre  26 rows")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try sqlite(database, "SELECT count(*) FROM Genre") != "26" {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try sqlite(database, "SELECT count(*) FROM Genre WHERE Name = 'Committed from the browser'") == "1")
        try session.type("q")
        try session.waitFor("chinook>")
    }
}
