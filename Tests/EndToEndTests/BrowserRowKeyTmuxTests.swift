import Foundation
import Testing

/// The browser on a table whose declared key is NULL in every row (as PROJ's `usage` is): every
/// row is reached, by paging and after sorting on a column of ties, and a row can be edited.
@Suite(.serialized) struct BrowserRowKeyTmuxTests {
    func nullKeyedSession() throws -> BrowserSession {
        let s = try BrowserSession(copyChinook: false)
        try Spawn.run("/usr/bin/sqlite3", [s.database, """
            CREATE TABLE usage (code TEXT PRIMARY KEY, name TEXT, authority TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT INTO usage SELECT NULL, 'row ' || i, CASE WHEN i <= 50 THEN 'EPSG' ELSE 'ESRI' END FROM n;
            """])
        return s
    }

    @Test func pagesReachEveryRowOfANullKeyedTable() throws {
        let s = try nullKeyedSession()
        try s.start(["--entity", "usage"], height: 20)
        try s.waitFor("usage  60 rows")
        try s.press("PageDown")
        try s.waitFor("row 30")
        try s.press("PageDown")
        try s.press("PageDown")
        try s.waitFor("row 60")
        try s.type("g")
        try s.waitFor("row 1 ")
        // Sorted on the column of ties, the next page goes on among the ties.
        try s.type("lls")
        try s.waitFor("authority↑")
        try s.press("PageDown")
        try s.waitFor("row 30")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    @Test func aRowOfANullKeyedTableIsEdited() throws {
        let s = try nullKeyedSession()
        try s.start(["--entity", "usage"])
        try s.waitFor("usage  60 rows")
        try s.editCell(moving: "jl", to: "renamed", saying: "updated usage.name")
        #expect(try s.shell("count usage where name == 'renamed'", extra: ["--format", "csv", "--no-header"]) == "1\n")
        #expect(try s.shell("count usage where name == 'row 2'", extra: ["--format", "csv", "--no-header"]) == "0\n")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}
