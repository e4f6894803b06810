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
}
