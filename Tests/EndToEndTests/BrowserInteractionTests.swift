import Foundation
import Testing

/// The browser, driven through tmux: keys, generated columns, long work shown and cancelled,
/// lock waits, completion in the filter, the record view.
@Suite(.serialized) struct BrowserInteractionTests {
    @Test func escapeAtTheTopLevelDoesNotQuit() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.press("Escape")
        try s.waitFor("q quits")
        Thread.sleep(forTimeInterval: 0.5)
        let screen = try s.screen()
        #expect(!screen.contains("BROWSER-EXITED"), "Esc quit the browser:\n\(screen)")
        #expect(screen.contains("Rock"))
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    @Test func generatedColumnsAreReadOnly() throws {
        let s = try BrowserSession(copyChinook: false)
        try s.shell("sql CREATE TABLE Line (Id INTEGER PRIMARY KEY, Price REAL, Qty INTEGER, Total REAL GENERATED ALWAYS AS (Price * Qty) VIRTUAL)",
                    "sql INSERT INTO Line (Price, Qty) VALUES (1.5, 2)", extra: ["--create"])
        try s.start(["--entity", "Line"])
        try s.waitFor("Line  1 rows")
        // `e` on the generated column says so at once.
        try s.type("llle")
        try s.waitFor("Total is a generated column")
        // The add form shows it read-only and Tab never lands on it: the last `9` goes to Qty.
        try s.type("a")
        try s.waitFor("(generated, read-only)")
        try s.press("Tab")
        try s.type("2.5")
        try s.press("Tab")
        try s.type("4")
        try s.press("Tab")
        try s.type("9")
        try s.press("Enter")
        try s.waitFor("created Line")
        #expect(try s.shell("count Line where Qty == 49 AND Total == 122.5").hasPrefix("1"))
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// Two million rows and a filter whose regular expression runs on every row: sorting or
    /// filtering takes seconds, long enough to see.
    static func bigSession() throws -> BrowserSession {
        let s = try BrowserSession(copyChinook: false)
        try Spawn.run("/usr/bin/env", ["sqlite3", s.database, """
            CREATE TABLE Big (id INTEGER PRIMARY KEY, label TEXT, n INTEGER);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000)
            INSERT INTO Big SELECT i, printf('label %07d', (i * 7919) % 2000000), i % 1000 FROM c;
            """], capture: false)
        return s
    }

    @Test func sortingAndFilteringALargeTableShowWorkAndCtrlCCancels() throws {
        let s = try Self.bigSession()
        try s.start(["--entity", "Big", "--where", "label MATCHES \".*1.*\""])
        try s.waitFor("label 0007919")
        // Sorting under the filter reads every row: `sorting…` shows while it runs.
        try s.type("ls")
        try s.waitFor("sorting…")
        try s.press("C-c")
        var screen = try s.waitFor("interrupted")
        let title = screen.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!title.contains("sort label"), "a cancelled sort leaves the old order: \(title)")
        #expect(screen.contains("label 0007919"))
        // A filter that matches nothing reads every row too.
        try s.type("/")
        try s.press("C-u")
        try s.type("label MATCHES \".*zzz.*\"")
        try s.press("Enter")
        try s.waitFor("filtering…")
        try s.press("C-c")
        screen = try s.waitFor("interrupted")
        #expect(!screen.contains("zzz"), "a cancelled filter leaves the old one:\n\(screen)")
        #expect(screen.contains("label 0007919"))
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    @Test func aWriteWaitingForALockSaysSoAtOnce() throws {
        let s = try BrowserSession()
        try s.startAnEditBehindAnotherProcesssLock()
        let started = Date()
        try s.waitFor("waiting for a lock…")
        #expect(Date().timeIntervalSince(started) < 3, "the wait was said late")
        try s.press("C-c")
        try s.waitFor("interrupted while waiting for another connection's lock")
        try s.releaseLock()
        #expect(try s.shell("count Genre where Name == 'Blocked'").hasPrefix("0"))
    }

    @Test func theFilterCompletesWithTab() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Track"])
        try s.waitFor("Track  3503 rows")
        try s.type("/compo")
        try s.press("Tab")
        try s.waitFor("/Composer")
        try s.type(" beginsw")
        try s.press("Tab")
        try s.waitFor("/Composer BEGINSWITH")
        try s.type(" \"Ang\" AND Genre.Na")
        try s.press("Tab")
        try s.waitFor("AND Genre.Name")
        // Several candidates: what they share is added and they are listed.
        try s.type(" != \"x\" AND Media")
        try s.press("Tab")
        let screen = try s.waitFor("MediaTypeId  MediaType")
        #expect(screen.contains("AND MediaType\n") || screen.hasSuffix("AND MediaType"), "\(screen)")
        try s.press("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace",
                    "BSpace", "BSpace", "BSpace", "BSpace")
        try s.press("Enter")
        try s.waitFor("Track  10 rows")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    @Test func theRecordViewListsRelationshipsAndFFollowsAToManyOne() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Album"])
        try s.waitFor("Album  347 rows")
        try s.press("Enter")
        try s.waitFor("→ AC/DC")
        try s.waitFor("→ 10 Track")
        // tracks: after the three attributes and the to-one Artist.
        try s.type("jjjjf")
        try s.waitFor("Track  10 rows  where AlbumId == 1")
        try s.waitFor("For Those About To Rock")
        try s.press("BSpace")
        try s.waitFor("Album  347 rows")
        // The to-one relationship is followed the same way.
        try s.press("Enter")
        try s.type("jjjf")
        try s.waitFor("Artist  1 rows  where ArtistId == 1")
        try s.press("BSpace")
        try s.waitFor("Album  347 rows")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}

/// Tables whose AFTER UPDATE and AFTER DELETE triggers write another table (every GeoPackage
/// layer has them): the browser's edit and delete take effect, and the triggers run once each.
@Suite(.serialized) struct BrowserTriggerTableTests {
    @Test func editsAndDeletesRowsOfATableWithAfterTriggers() throws {
        let s = try BrowserSession()
        _ = try Spawn.run("/usr/bin/env", ["sqlite3", s.database, """
            CREATE TABLE Audit (what TEXT);
            INSERT INTO Genre (GenreId, Name) VALUES (26, 'Zydeco');
            CREATE TRIGGER GenreUpdated AFTER UPDATE ON Genre BEGIN INSERT INTO Audit VALUES ('u ' || new.GenreId); END;
            CREATE TRIGGER GenreDeleted AFTER DELETE ON Genre BEGIN INSERT INTO Audit VALUES ('d ' || old.GenreId); END;
            """])
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  26 rows")
        try s.editCell(moving: "l", to: "Rock!", saying: "updated Genre.Name")
        try s.type("G")
        try s.waitFor("Zydeco")
        try s.type("d")
        try s.type("y")
        try s.waitFor("deleted 1 Genre")
        let audit = try Spawn.run("/usr/bin/env", ["sqlite3", s.database, "SELECT group_concat(what, ',') FROM Audit"])
        #expect(audit.trimmingCharacters(in: .whitespacesAndNewlines) == "u 1,d 26")
    }
}
