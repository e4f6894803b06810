import Foundation
import Testing

/// In the real browser through tmux: names with invisible controls
/// are shown escaped in the title bar and the add form, and the `:` output pane is plain text
/// that typed text cannot get past into a write.
@Suite(.serialized) struct BrowserTerminalSafetyTests {
    @Test func titleBarAndAddFormShowInvisibleControlsEscaped() throws {
        let s = try BrowserSession(copyChinook: false)
        try s.shell("sql CREATE TABLE \"Bidi\u{202E}Name\" (id INTEGER PRIMARY KEY, \"Col\u{2066}x\" TEXT)",
                    "sql INSERT INTO \"Bidi\u{202E}Name\" VALUES (1, 'plain')", extra: ["--create"])
        try s.start([])
        let title = try s.waitFor("Bidi\\u{202e}Name  1 rows")
        #expect(!title.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2066 })
        #expect(title.contains("Col\\u{2066}x"))
        try s.type("a")
        // The whole form: a capture may catch its title drawn before its fields.
        let form = try s.waitFor("the add form with its fields") {
            $0.contains("new Bidi\\u{202e}Name") && $0.contains("Col\\u{2066}x")
        }
        #expect(!form.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2066 })
        try s.press("Escape")
    }

    @Test func outputPaneIsPlainTextEvenWithColour() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre", "--color", "always"])
        try s.waitFor("Genre  25 rows")
        try s.type(":find Genre limit 2")
        try s.press("Enter")
        // The grid shows GenreId too: wait for the pane's table rule.
        let pane = try s.waitFor("the output pane") { $0.contains("output") && $0.contains("-+-") }
        #expect(!pane.contains("\\x1b"), "colour codes shown in the pane:\n\(pane)")
        #expect(!pane.contains("[1m"), "colour codes shown in the pane:\n\(pane)")
        #expect(pane.contains("Rock"))
    }

    /// A browser on Genre, the cursor on Name, with the output of `:count Genre` open; and
    /// Genre's rows as they were.
    static func openOutputPane() throws -> (BrowserSession, String) {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        let before = try s.shell("find Genre")
        try s.type("l:count Genre")
        try s.press("Enter")
        try s.waitFor("output")
        return (s, before)
    }

    /// `:` typed while the pane is open starts a new command (it used to only close the pane, and
    /// the rest of the command ran as grid keys: `d`, `G`, `e`, …).
    @Test func colonInTheOutputPaneStartsANewCommand() throws {
        let (s, before) = try Self.openOutputPane()
        try s.type(":find Customer where CustomerId == 1")
        try s.press("Enter")
        try s.waitFor("Gonçalves")
        try s.press("Escape")
        try s.waitFor("Genre  25 rows")
        #expect(try s.shell("find Genre") == before)
    }

    /// Keys typed ahead behind the one that closes the pane are dropped: `x` closes it, and
    /// `eLocked⏎` typed with it does not edit and save a cell.
    @Test func typedTextBehindTheClosingKeyReachesNoWrite() throws {
        let (s, before) = try Self.openOutputPane()
        try s.type("xeLocked\r")
        Thread.sleep(forTimeInterval: 1)
        let screen = try s.waitFor("Genre  25 rows")
        #expect(!screen.contains("Locked"), "typed text reached the grid:\n\(screen)")
        #expect(try s.shell("find Genre") == before)
        #expect(try s.shell("count Genre where Name CONTAINS 'Locked'").hasPrefix("0"))
    }
}
