import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real binary's browser, driven through tmux: keys in with `send-keys`, screen out with
/// `capture-pane`. Each test has its own tmux server (socket) and its own copy of the database.
final class BrowserSession {
    let directory: URL
    /// The database the browser and `shell` open: the copy's path, or a server URL a test sets.
    var database: String
    let socket: String

    /// A copy of Chinook (or an empty file to be filled by `prepare`) in a temporary folder.
    init(copyChinook: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("db.sqlite").path
        if copyChinook { try FileManager.default.copyItem(atPath: Shell.chinook, toPath: database) }
        socket = "portal-browser-\(UUID().uuidString.prefix(8))"
    }

    deinit {
        _ = try? Spawn.run("/usr/bin/env", ["tmux", "-L", socket, "kill-server"], capture: false)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the shell non-interactively on the database (to prepare data or write "from outside").
    @discardableResult
    func shell(_ commands: String..., extra: [String] = []) throws -> String {
        try Spawn.run(Shell.binary, extra + [database] + commands.flatMap { ["-e", $0] })
    }

    /// Starts the browser in a detached tmux session of the given size.
    func start(_ arguments: [String], width: Int = 100, height: Int = 30) throws {
        let command = ([Shell.binary, "--browse"] + arguments + [database]).map(Self.quote).joined(separator: " ")
            + "; echo BROWSER-EXITED-$?; sleep 60"
        try tmux(["-u", "new-session", "-d", "-x", String(width), "-y", String(height), command])
    }

    /// Runs tmux without reading its output: the server it may start would keep a pipe open.
    func tmux(_ arguments: [String]) throws {
        _ = try Spawn.run("/usr/bin/env", ["tmux", "-L", socket] + arguments, capture: false)
    }

    /// Sends a signal (`TERM`, `INT`, `HUP`) to the program the tmux pane's shell runs.
    func signal(_ name: String) throws {
        let shell = try Spawn.run("/usr/bin/env", ["tmux", "-L", socket, "display-message", "-p", "#{pane_pid}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try Spawn.run("/usr/bin/env", ["pkill", "-\(name)", "-P", shell], capture: false)
    }

    /// Types literal text.
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }

    /// Moves with `keys`, replaces the cell there with `text` (`e`, clear, type, Enter) and
    /// waits for the status line to say `summary`.
    func editCell(moving keys: String, to text: String, saying summary: String) throws {
        try type(keys + "e")
        try press("C-u")
        try type(text)
        try press("Enter")
        try waitFor(summary)
    }
    /// Presses named keys (`Enter`, `Escape`, `PageDown`, `BSpace`, …).
    func press(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// The browser's screen, or that of another tmux window (`target`).
    func screen(_ target: String? = nil) throws -> String {
        try Spawn.run("/usr/bin/env", ["tmux", "-L", socket, "capture-pane", "-p"] + (target.map { ["-t", $0] } ?? []))
    }

    /// Waits (at most 10 s) until the screen satisfies `condition`; returns the last screen seen.
    @discardableResult
    func waitFor(_ description: String, in target: String? = nil, _ condition: (String) -> Bool) throws -> String {
        var last = ""
        for _ in 0..<200 {
            last = try screen(target)
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("timed out waiting for \(description); screen was:\n\(last)")
        return last
    }

    @discardableResult
    func waitFor(_ text: String) throws -> String { try waitFor("'\(text)'") { $0.contains(text) } }

    /// Opens the Genre grid with a minute-long busy timeout while a real sqlite3 in another tmux
    /// window holds BEGIN IMMEDIATE, and starts an edit of the first name to `Blocked`: the
    /// write then waits for the lock. `releaseLock()` lets the holder go.
    func startAnEditBehindAnotherProcesssLock() throws {
        try start(["--entity", "Genre", "--busy-timeout", "60000"])
        try waitFor("Genre  25 rows")
        try tmux(["new-window", "-d", "-n", "holder", "sqlite3 \(Self.quote(database)); sleep 60"])
        try tmux(["send-keys", "-t", "holder", "-l", "BEGIN IMMEDIATE; SELECT 'lock ' || 'held';\n"])
        try waitFor("'lock held'", in: "holder") { $0.contains("lock held") }
        try type("le")
        try press("C-u")
        try type("Blocked")
        try press("Enter")
    }

    func releaseLock() throws { try tmux(["send-keys", "-t", "holder", "-l", "ROLLBACK;\n.quit\n"]) }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

@Suite(.serialized) struct BrowserTmuxTests {
    @Test func browsesFiltersSortsAndQuits() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Track"])
        try s.waitFor("Track  3503 rows")
        try s.waitFor("For Those About To Rock")
        try s.type("G")
        try s.waitFor("Koyaanisqatsi")
        try s.type("g")
        try s.waitFor("For Those About To Rock")
        try s.type("/Nmae == 1")
        try s.waitFor("no attribute or relationship named 'Nmae'")
        try s.press("Escape")
        try s.type("/Composer BEGINSWITH \"Ang\"")
        try s.press("Enter")
        try s.waitFor("Track  10 rows")
        try s.type("lS")
        let sorted = try s.waitFor("Name↓")
        let body = sorted.split(separator: "\n").dropFirst(2).first.map(String.init) ?? ""
        #expect(body.contains("Spellbound"), "Name descending starts with the last name: \(body)")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// A `--where` the browser refuses before its screen opens is reported as the shell reports
    /// a command's mistake: the filter under the message, a caret under the name; exit status 1.
    @Test func aRefusedFilterIsReportedWithACaret() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Track", "--where", "GenreId == 1 AND Nmae == 1"])
        let screen = try s.waitFor("BROWSER-EXITED-1")
        #expect(screen.contains("""
            error: invalid filter: Track has no attribute or relationship named 'Nmae' (did you mean 'Name'?)
              GenreId == 1 AND Nmae == 1
                               ^~~~
            BROWSER-EXITED-1
            """), "\(screen)")
    }

    @Test func editsAddsDeletesAndUndoes() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.editCell(moving: "l", to: "Rock and Roll", saying: "updated Genre.Name")
        #expect(try s.shell("count Genre where Name == 'Rock and Roll'").hasPrefix("1"))
        try s.type("u")
        try s.waitFor("undone")
        #expect(try s.shell("count Genre where Name == 'Rock and Roll'").hasPrefix("0"))

        try s.type("a")
        try s.waitFor("(default)")
        try s.press("Down")
        try s.type("Zydeco")
        try s.press("Enter")
        try s.waitFor("created Genre")
        try s.waitFor("Genre  26 rows")
        #expect(try s.shell("count Genre where Name == 'Zydeco'").hasPrefix("1"))
        try s.type("d")
        try s.waitFor("? y/n")
        try s.type("y")
        try s.waitFor("Genre  25 rows")
        #expect(try s.shell("count Genre where Name == 'Zydeco'").hasPrefix("0"))
        try s.type("u")
        try s.waitFor("Genre  26 rows")
        #expect(try s.shell("count Genre where Name == 'Zydeco'").hasPrefix("1"))
    }

    /// An edit that waits behind another process's write lock (a real sqlite3 holding
    /// BEGIN IMMEDIATE) is ended by Ctrl-C long before its minute-long busy timeout; it changes
    /// nothing, and the browser goes on working.
    @Test func ctrlCEndsAnEditWaitingForAnotherProcesssLock() throws {
        let s = try BrowserSession()
        try s.startAnEditBehindAnotherProcesssLock()
        var screen = ""
        for _ in 0..<20 where !screen.contains("interrupted") {
            Thread.sleep(forTimeInterval: 0.3)
            try s.press("C-c")
            screen = try s.screen()
        }
        screen = try s.waitFor("interrupted while waiting for another connection's lock")
        #expect(screen.contains("Rock"))
        try s.releaseLock()
        #expect(try s.shell("count Genre where Name == 'Blocked'").hasPrefix("0"))
        try s.type("j")   // still browsing
        try s.waitFor("Genre  25 rows")
    }

    @Test func followsAForeignKeyAndComesBack() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Album"])
        try s.waitFor("Balls to the Wall")
        try s.type("jllf")
        try s.waitFor("Artist  1 rows  where ArtistId == 2")
        try s.waitFor("Accept")
        try s.press("BSpace")
        try s.waitFor("Album  347 rows")
    }

    @Test func resizesToFortyByTenAndBack() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Track"])
        try s.waitFor("Track  3503 rows")
        try s.tmux(["resize-window", "-x", "40", "-y", "10"])
        let small = try s.waitFor("a 40×10 screen") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 10 && lines[9].hasPrefix("? help") && screen.contains("Track  3503 rows")
        }
        #expect(small.split(separator: "\n").allSatisfy { $0.count <= 40 })
        try s.tmux(["resize-window", "-x", "100", "-y", "30"])
        try s.waitFor("a 100×30 screen") { $0.contains("Dude (Looks Like A Lady)") }
    }

    @Test func anExternalWriteAppearsOnScreen() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.shell("update Genre set Name = 'Changed Outside' where GenreId == 2")
        try s.waitFor("Changed Outside")
        try s.shell("create Genre set Name = 'Brand New'")
        try s.waitFor("Genre  26 rows")
    }

    @Test func colonRunsShellCommandsAndShowsTheirOutput() throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.type(":update Genre set Name = 'Via Colon' where GenreId == 3")
        try s.press("Enter")
        try s.waitFor("updated 1 Genre")
        try s.press("Escape")
        try s.waitFor("Via Colon")
        try s.type(":find Nope")
        try s.press("Enter")
        try s.waitFor("error: ")
        try s.press("Escape")
        try s.waitFor("Genre  25 rows")
    }

    /// SIGTERM and SIGINT from outside end the browser as an interrupted session (130), SIGHUP
    /// as a hung-up one (129); each time the terminal is given back first.
    @Test(arguments: [("TERM", "130"), ("INT", "130"), ("HUP", "129")])
    func signalsEndTheBrowserAndGiveTheTerminalBack(signal: String, status: String) throws {
        let s = try BrowserSession()
        try s.start(["--entity", "Genre"])
        try s.waitFor("Genre  25 rows")
        try s.signal(signal)
        let screen = try s.waitFor("BROWSER-EXITED-\(status)")
        #expect(!screen.contains("Genre  25 rows"), "the browser's screen was left behind")
    }

    /// SIGTERM while the REPL's `browse` runs ends the browser, then the whole session (130),
    /// rather than prompting again.
    @Test func sigtermDuringTheREPLsBrowseEndsTheSession() throws {
        let s = try BrowserSession()
        let command = ["env", "PORTAL_SHELL_HISTORY=\(s.directory.path)/history", Shell.binary, "--no-init", s.database]
            .map(BrowserSession.quote).joined(separator: " ") + "; echo SHELL-EXITED-$?; sleep 60"
        try s.tmux(["-u", "new-session", "-d", "-x", "100", "-y", "30", command])
        try s.waitFor("db>")
        try s.type("browse Genre")
        try s.press("Enter")
        try s.waitFor("Genre  25 rows")
        try s.signal("TERM")
        try s.waitFor("SHELL-EXITED-130")
    }

    @Test func readOnlySessionsRefuseEdits() throws {
        let s = try BrowserSession()
        try s.start(["--read-only", "--entity", "Artist"])
        try s.waitFor("AC/DC")
        try s.type("e")
        try s.waitFor("read-only session")
        try s.type("d")
        try s.waitFor("read-only session")
    }

    @Test func escapeSequencesInCellsDoNotReachTheTerminal() throws {
        let s = try BrowserSession()
        try s.shell("sql UPDATE Artist SET Name = char(27) || ']2;PWNED' || char(7) || char(27) || '[2J' || char(27) || '[31mred' WHERE ArtistId = 1")
        try s.start(["--entity", "Artist"])
        try s.waitFor("\\x1b]2;PWNED\\x07\\x1b[2J\\x1b[31mred")
        try s.waitFor("Accept")
        let title = try Spawn.run("/usr/bin/env", ["tmux", "-L", s.socket, "display-message", "-p", "#{pane_title}"])
        #expect(!title.contains("PWNED"))
    }

    @Test func aLargeTableOpensAtBothEnds() throws {
        let s = try BrowserSession(copyChinook: false)
        try s.shell("sql CREATE TABLE Big (id INTEGER PRIMARY KEY, label TEXT, n INTEGER)",
                    "sql WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000) INSERT INTO Big SELECT i, 'label ' || i, i % 1000 FROM c",
                    extra: ["--create"])
        try s.start(["--entity", "Big"])
        try s.waitFor("label 1 ")
        try s.type("G")
        try s.waitFor("label 1000000")
        try s.press("PageUp")
        try s.waitFor("label 999972")
        try s.type("g")
        try s.waitFor("label 27 ")
        try s.waitFor("Big  1000000 rows")
    }
}
