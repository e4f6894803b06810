import Foundation
import Testing

/// The REPL driven in tmux: completion, history across sessions, multi-line input, Ctrl-C,
/// the confirmation, the init file, the demo database.
final class TmuxSession {
    let socket = "portal-shell-test-\(UUID().uuidString.prefix(8))"
    let name = "repl"
    let home: URL

    init(arguments: [String], home: URL) throws {
        self.home = home
        let environment = [
            "HOME=\(home.path)", "LANG=C.UTF-8", "NO_COLOR=1", "TERM=xterm-256color",
            "XDG_CONFIG_HOME=\(home.path)/config", "XDG_DATA_HOME=\(home.path)/data", "XDG_STATE_HOME=\(home.path)/state",
            "PORTAL_SHELL_HISTORY=\(home.path)/history",
        ]
        let command = (["env"] + environment + [Shell.binary] + arguments).map(Self.shellQuoted).joined(separator: " ")
        try tmux(["-u", "new-session", "-d", "-s", name, "-x", "160", "-y", "40", command], capture: false)
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
        try Spawn.run("/usr/bin/tmux", ["-L", socket] + arguments, capture: capture)
    }

    func type(_ text: String) throws { try tmux(["send-keys", "-t", name, "-l", text]) }
    func press(_ key: String) throws { try tmux(["send-keys", "-t", name, key]) }
    func screen() throws -> String { try tmux(["capture-pane", "-t", name, "-p"]) }

    /// Waits until the screen contains `text` (at most `seconds`); returns the screen.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 15) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("timed out waiting for \(text.debugDescription); screen:\n\(last)")
        return last
    }

    /// True once the program has exited (the pane is gone).
    func waitForExit(seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !(try tmux(["list-sessions"]).contains(name)) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    deinit {
        // kill-server alone left servers behind here; kill the pane's program and the server too.
        let pids = ((try? tmux(["display-message", "-p", "-t", name, "#{pid} #{pane_pid}"])) ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
        _ = try? tmux(["kill-server"], capture: false)
        for pid in pids.reversed() where pid > 1 { kill(pid, SIGKILL) }
    }
}

@Suite(.serialized) struct REPLTests {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    @Test func completionOfCommandsEntitiesAndKeyPaths() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("fir")
        try session.press("Tab")
        try session.waitFor("chinook> first")
        try session.type("Tra")
        try session.press("Tab")
        try session.waitFor("chinook> first Track")
        try session.type("where Album.Ti")
        try session.press("Tab")
        try session.waitFor("where Album.Title")
        try session.type("== 'Let There Be Rock'")
        try session.press("Enter")
        try session.waitFor("Go Down")
    }

    @Test func historyAcrossTwoSessions() throws {
        let first = try TmuxSession(arguments: [db], home: folder)
        try first.waitFor("chinook>")
        try first.type("count Genre where GenreId < 4")
        try first.press("Enter")
        try first.waitFor("\n3\n")
        try first.press("C-d")
        #expect(try first.waitForExit())
        let second = try TmuxSession(arguments: [db], home: folder)
        try second.waitFor("chinook>")
        try second.press("Up")
        try second.waitFor("chinook> count Genre where GenreId < 4")
        try second.press("Enter")
        try second.waitFor("\n3\n")
    }

    @Test func multiLineInput() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("count Track where (GenreId == 1")
        try session.press("Enter")
        try session.waitFor("...>")
        try session.type("OR GenreId == 2)")
        try session.press("Enter")
        try session.waitFor("1427")
    }

    @Test func controlCCancelsTheLineAndTheRunningCommand() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("find Track where garbage")
        try session.waitFor("where garbage")   // typed in full before Ctrl-C (under load keys lag)
        try session.press("C-c")
        try session.waitFor("^C")
        try session.type("count MediaType")
        try session.press("Enter")
        let screen = try session.waitFor("\n5\n")
        #expect(!screen.contains("garbage\nerror"))
        try session.type("sql WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        try session.press("Enter")
        Thread.sleep(forTimeInterval: 0.5)
        try session.press("C-c")
        try session.waitFor("error: interrupted")
        try session.type("count Genre")
        try session.press("Enter")
        try session.waitFor("\n25\n")
    }

    @Test func confirmationBeforeTouchingMoreThanOneEntity() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("delete PlaylistTrack where TrackId == 1")
        try session.press("Enter")
        try session.waitFor("delete 3 PlaylistTrack? [y/N]")
        try session.type("n")
        try session.press("Enter")
        try session.waitFor("nothing deleted")
        try session.type("delete PlaylistTrack where TrackId == 1")
        try session.press("Enter")
        try session.waitFor("delete 3 PlaylistTrack? [y/N]")
        try session.type("y")
        try session.press("Enter")
        try session.waitFor("deleted 3 PlaylistTrack")
        try session.type("begin")
        try session.press("Enter")
        try session.waitFor("chinook*>")
    }

    @Test func initFileRunsBeforeThePrompt() throws {
        let config = folder.appendingPathComponent("config/portal-shell")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "mode csv\nlet $who = 'AC/DC'\n".write(to: config.appendingPathComponent("init"), atomically: true, encoding: .utf8)
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("find Artist where Name == $who")
        try session.press("Enter")
        try session.waitFor("1,AC/DC")
        let skipped = try TmuxSession(arguments: [db, "--no-init"], home: folder)
        try skipped.waitFor("chinook>")
        try skipped.type("vars")
        try skipped.press("Enter")
        try skipped.waitFor("name")
        #expect(!(try skipped.screen().contains("$who")))
    }

    @Test func browseFromThePromptAndBack() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("browse Track where GenreId == 2")
        try session.press("Enter")
        try session.waitFor("130 rows")
        try session.press("q")
        Thread.sleep(forTimeInterval: 0.3)
        try session.type("count Genre")
        try session.press("Enter")
        try session.waitFor("\n25\n")
    }

    @Test func noDatabaseOpensTheDemo() throws {
        let session = try TmuxSession(arguments: [], home: folder)
        try session.waitFor("Created the demo database", seconds: 120)
        try session.waitFor("demo>")
        try session.type("count Workout")
        try session.press("Enter")
        try session.waitFor("250000")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/portal-shell/demo.sqlite").path))
    }
}
