import Foundation
import Testing

/// Issue 11, points 15–20: the browser, driven through tmux.
@Suite(.serialized) struct Issue11BrowserTests {
    @Test func issue11_point16_escapeAtTheTopLevelDoesNotQuit() throws {
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

    @Test func issue11_point19_generatedColumnsAreReadOnly() throws {
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
}
