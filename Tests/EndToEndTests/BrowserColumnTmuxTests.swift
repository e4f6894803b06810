import Foundation
import Testing

/// `F` (frequency table), `I` (statistics), `-` and `+` in the real binary's browser, driven
/// through tmux at 40×10 under NO_COLOR, on Chinook, a view, and generated tables of 2,000,000 and
/// 10,000,000 rows.
@Suite(.serialized) struct BrowserColumnTmuxTests {
    /// Starts the browser with NO_COLOR set, as `BrowserSession.start` does otherwise.
    func startWithoutColor(_ s: BrowserSession, _ arguments: [String], width: Int = 40, height: Int = 10) throws {
        let command = "NO_COLOR=1 " + ([Shell.binary, "--browse"] + arguments + [s.database]).map(BrowserSession.quote)
            .joined(separator: " ") + "; echo BROWSER-EXITED-$?; sleep 60"
        try s.tmux(["-u", "new-session", "-d", "-x", String(width), "-y", String(height), command])
    }

    /// The screen with its attributes as escape sequences: under NO_COLOR there is no colour in it.
    func colours(_ s: BrowserSession) throws -> Bool {
        let raw = try Spawn.run("/usr/bin/env", ["tmux", "-L", s.socket, "capture-pane", "-p", "-e"])
        let pattern = try NSRegularExpression(pattern: "\u{1b}\\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)[0-9;]*m")
        return pattern.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) != nil
    }

    /// One figure from the real sqlite3 on the test's database: the oracle.
    func sqlite(_ s: BrowserSession, _ sql: String) throws -> String {
        try Spawn.run("/usr/bin/env", ["sqlite3", s.database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func frequencyEnterStatisticsHideAndShowOnChinookAtFortyByTen() throws {
        let s = try BrowserSession()
        try startWithoutColor(s, ["--entity", "Track"])
        try s.waitFor("Track  3503 rows")
        // GenreId, the fifth column: Rock (1) is the most frequent, 1297 of 3503 tracks.
        let rock = try sqlite(s, "SELECT count(*) FROM Track WHERE GenreId = 1")
        let share = String(format: "%.1f%%", (Double(rock) ?? 0) * 100 / 3503)
        try s.type("llllF")
        var screen = try s.waitFor("the most frequent line") { $0.contains(" \(rock) ") && $0.contains(share) && $0.contains("█") }
        #expect(screen.contains("count") && screen.contains("share"))
        try s.waitFor("25 values")
        #expect(try !colours(s), "colour under NO_COLOR")
        // The second line is the second most frequent genre.
        let second = try sqlite(s, "SELECT GenreId || ' ' || count(*) FROM Track GROUP BY GenreId ORDER BY count(*) DESC, GenreId LIMIT 1 OFFSET 1")
        let parts = second.split(separator: " ")
        try s.type("j")
        try s.press("Enter")
        screen = try s.waitFor("Track  \(parts[1]) rows")
        #expect(screen.contains("GenreId == \(parts[0])"))
        // I on Milliseconds (two columns on) over the filtered rows.
        try s.type("llI")
        let minimum = try sqlite(s, "SELECT min(Milliseconds) FROM Track WHERE GenreId = \(parts[0])")
        let maximum = try sqlite(s, "SELECT max(Milliseconds) FROM Track WHERE GenreId = \(parts[0])")
        screen = try s.waitFor("statistics") { $0.contains("min        \(minimum)") && $0.contains("max        \(maximum)") }
        #expect(screen.contains("statistics of Milliseconds") && screen.contains("rows       \(parts[1])"))
        try s.type("jjjjjjjj")
        try s.waitFor("histogram bars") { $0.contains("█") }
        try s.type("q")
        try s.waitFor("? help")
        // - hides Milliseconds; + shows it again.
        #expect(try s.screen().contains("Millisec"))
        try s.type("-")
        screen = try s.waitFor("Milliseconds hidden")
        #expect(!(screen.split(separator: "\n").dropFirst().first ?? "").contains("Millisec"))
        try s.type("+")
        try s.waitFor("1 hidden column shown")
        #expect(try s.screen().contains("Millisec"))
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// On a view: NULL is the most frequent composer, and Enter filters with `== NULL`.
    @Test func frequencyOfAViewFiltersToNull() throws {
        let s = try BrowserSession()
        try s.shell("sql CREATE VIEW Composers AS SELECT Name, Composer FROM Track")
        let nulls = try sqlite(s, "SELECT count(*) FROM Track WHERE Composer IS NULL")
        try startWithoutColor(s, ["--entity", "Composers"])
        try s.waitFor("Composers  3503 rows")
        try s.type("lF")
        try s.waitFor("NULL first") { $0.contains("NULL") && $0.contains(" \(nulls) ") }
        try s.press("Enter")
        try s.waitFor("Composers  \(nulls) rows")
        // The filter line shows the whole filter (the title is cut at 40 columns).
        try s.type("/")
        try s.waitFor("the filter") { $0.contains("/Composer == NULL") || $0.contains("/Composer == nil") }
        try s.press("Escape")
        try s.type("I")
        try s.waitFor("statistics") { $0.contains("NULLs      \(nulls)") }
        try s.press("Escape")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// Waits up to `seconds` (grouping ten million rows takes a few on a busy machine).
    @discardableResult
    func waitLong(_ s: BrowserSession, _ description: String, seconds: Double = 60, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try s.screen()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("timed out waiting for \(description); screen was:\n\(last)")
        return last
    }

    /// The benchmark's table (portal-bench's `tuiDatabase`): ten million rows, `a` = id % 100000
    /// indexed, `b` = id × 7 % 1000003, `c` = id % 13. The unique id opens at once; `a` groups by
    /// its index; statistics of `c` read every row in the background; Ctrl-C cancels those of `b`.
    @Test func theTenMillionRowBenchmarkTable() throws {
        let s = try BrowserSession(copyChinook: false)
        try Spawn.run("/usr/bin/env", ["sqlite3", s.database, """
            CREATE TABLE Big (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER, c INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000)
            INSERT INTO Big SELECT i, i % 100000, i * 7 % 1000003, i % 13 FROM n;
            CREATE INDEX Big_a ON Big(a);
            """], capture: false)
        try startWithoutColor(s, ["--entity", "Big"])
        try waitLong(s, "the exact count") { $0.contains("Big  10000000 rows") }
        try s.type("F")
        try waitLong(s, "ten million ids") { $0.contains("10000000 values") && $0.contains(" 1 ") }
        try s.type("G")
        try s.waitFor("the last id") { $0.split(separator: "\n").contains { $0.hasPrefix("10000000 ") } }
        try s.type("q")
        try s.type("lF")
        try waitLong(s, "a grouped") { $0.contains("100000 values") && $0.contains(" 100 ") }
        try s.press("Enter")
        try waitLong(s, "a == 0") { $0.contains("Big  100 rows") }
        try s.type("-")
        try s.waitFor("a hidden")
        try s.type("+")
        try s.waitFor("1 hidden column shown")
        try s.type("/")
        try s.press("C-u")
        try s.press("Enter")
        try waitLong(s, "no filter") { $0.contains("Big  10000000 rows") }
        try s.type("lI")   // c
        let screen = try waitLong(s, "statistics of c") { $0.contains("histogram") }
        #expect(screen.contains("rows       10000000") && screen.contains("distinct   13"))
        #expect(screen.contains("min        0") && screen.contains("max        12"))
        try s.type("q")
        try s.type("hI")   // b: a million values, counted distinct over every row
        try s.waitFor("Ctrl-C cancels")
        try s.press("C-c")
        try waitLong(s, "cancelled") { $0.contains("no statistics:") }
        try s.type("q")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// Two million rows with text labels: the unique id opens at once, a
    /// column without an index groups in a moment, Enter filters, and under a filter that runs a
    /// regular expression on every row Ctrl-C cancels statistics and a frequency table.
    @Test func aLargeTable() throws {
        let s = try BrowserInteractionTests.bigSession()
        try startWithoutColor(s, ["--entity", "Big"])
        try s.waitFor("label 0007919")
        try s.type("F")   // id: unique, each value once
        try s.waitFor("id in order") { $0.contains("2000000 values") || ($0.contains(" 1 ") && $0.contains("0.0%")) }
        try s.type("G")
        try s.waitFor("the last id") { $0.split(separator: "\n").contains { $0.hasPrefix("2000000 ") } }
        try s.type("q")
        try s.type("llF")   // n = id % 1000: a thousand values of 2000 rows each, 0 first
        try s.waitFor("n grouped") { $0.contains(" 2000 ") && $0.contains("0.1%") && $0.contains("1000 values") }
        try s.press("Enter")
        try s.waitFor("Big  2000 rows")
        try s.type("/")
        try s.press("C-u")
        try s.type("label MATCHES \".*1.*\"")
        try s.press("Enter")
        try s.waitFor("where label MATCHES")
        // Statistics over a filter that runs a regular expression on every row take seconds.
        try s.type("hI")
        try s.waitFor("computing…")
        try s.press("C-c")
        try s.waitFor("no statistics:")
        try s.type("q")
        // So does grouping the labels under that filter: Ctrl-C leaves the grid as it was.
        try s.type("F")
        try s.waitFor("counting values…")
        try s.press("C-c")
        let screen = try s.waitFor("interrupted")
        #expect(!screen.contains("share"))
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}
