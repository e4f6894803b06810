import Foundation
import Testing

/// Issue 10, in the real browser through tmux: names with invisible controls are shown escaped
/// in the title bar and the add form (point 13).
@Suite(.serialized) struct BrowserTerminalSafetyTests {
    @Test func issue10_point13_titleBarAndAddFormShowInvisibleControlsEscaped() throws {
        let s = try BrowserSession(copyChinook: false)
        try s.shell("sql CREATE TABLE \"Bidi\u{202E}Name\" (id INTEGER PRIMARY KEY, \"Col\u{2066}x\" TEXT)",
                    "sql INSERT INTO \"Bidi\u{202E}Name\" VALUES (1, 'plain')", extra: ["--create"])
        try s.start([])
        let title = try s.waitFor("Bidi\\u{202e}Name  1 rows")
        #expect(!title.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2066 })
        #expect(title.contains("Col\\u{2066}x"))
        try s.type("a")
        let form = try s.waitFor("new Bidi\\u{202e}Name")
        #expect(form.contains("Col\\u{2066}x"))
        #expect(!form.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2066 })
        try s.press("Escape")
    }
}
