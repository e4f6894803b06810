import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What the documentation consistency tests read (the man page, the README) and how they run
/// the documented commands: the built binary, in a scratch folder, on the demo database.
enum Docs {
    static let manPage = Shell.repository.appendingPathComponent("man/portal-shell.1")
    static let readme = Shell.repository.appendingPathComponent("README.md")
    static let readmeExample = Shell.repository.appendingPathComponent("Tests/ReadmeExample/ReadmeExample.swift")

    static func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    // MARK: The man page

    /// The source lines of one `.Sh` section (without its `.Sh` line).
    static func manSection(_ name: String) throws -> [String] {
        var lines: [String] = []
        var inside = false
        for line in try text(manPage).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".Sh ") {
                inside = line.dropFirst(4) == name
                continue
            }
            if inside { lines.append(String(line)) }
        }
        return lines
    }

    /// mdoc escapes as the reader sees them.
    static func unescape(_ line: String) -> String {
        line.replacingOccurrences(of: "\\(dq", with: "\"")
            .replacingOccurrences(of: "\\&", with: "")
            .replacingOccurrences(of: "\\-", with: "-")
            .replacingOccurrences(of: "\\e", with: "\\")
    }

    /// The `.Dl` example lines of a section.
    static func displayLines(_ section: [String]) -> [String] {
        section.filter { $0.hasPrefix(".Dl ") }.map { unescape(String($0.dropFirst(4))) }
    }

    /// The lines of every `.Bd -literal` block of a section.
    static func literalBlocks(_ section: [String]) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in section {
            if line.hasPrefix(".Bd -literal") {
                current = []
            } else if line == ".Ed", let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                current?.append(unescape(line))
            }
        }
        return blocks
    }

    // MARK: The README

    /// The body of the first fenced block after the line `marker`.
    static func readmeBlock(after marker: String) throws -> String? {
        let lines = try text(readme).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: marker),
              let open = lines[(start + 1)...].firstIndex(where: { $0.hasPrefix("```") }),
              let close = lines[(open + 1)...].firstIndex(of: "```") else { return nil }
        return lines[(open + 1)..<close].map { $0 + "\n" }.joined()
    }

    // MARK: Running

    /// The demo database, generated once per test run by `--demo` (never modified: copy it).
    static let demoDatabase: Result<String, any Error> = Result(catching: {
        let folder = try scratchFolder()
        let path = folder.appendingPathComponent("demo.sqlite").path
        let run = try Shell.run(["--demo", path])
        guard run.status == 0 else { throw DocsError("--demo failed: \(run.stderr)") }
        return path
    })

    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A scratch folder holding `fitness.sqlite` (a copy of the demo database, unless
    /// `withDatabase` is false) and the files the documented examples read.
    static func exampleFolder(withDatabase: Bool = true) throws -> URL {
        let folder = try scratchFolder()
        if withDatabase {
            try FileManager.default.copyItem(atPath: try demoDatabase.get(),
                                             toPath: folder.appendingPathComponent("fitness.sqlite").path)
        }
        try "Name,City,DistanceKm,Surface\nHarbour Loop,Lisboa,7.5,road\n"
            .write(to: folder.appendingPathComponent("new-routes.csv"), atomically: true, encoding: .utf8)
        try "count Workout where StartedAt >= \"2023-01-01\"\nfind Route sort by DistanceKm desc limit 3\n"
            .write(to: folder.appendingPathComponent("weekly.portal"), atomically: true, encoding: .utf8)
        return folder
    }

    /// The environment the examples run in: the binary first on PATH, and HOME and the XDG
    /// folders inside `folder`, so that nothing outside it is read or written.
    static func environment(in folder: URL) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        let bin = URL(fileURLWithPath: Shell.binary).deletingLastPathComponent().path
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["HOME"] = folder.path
        env["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
        env["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        env["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "PORTAL_SHELL_HISTORY")
        return env
    }

    /// Runs `executable` with `arguments` in `folder`; standard input is empty.
    static func run(_ executable: String, _ arguments: [String], in folder: URL,
                    environment: [String: String]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = environment ?? Self.environment(in: folder)
        // Both streams go to files: reading two pipes at once would need two threads.
        let id = UUID().uuidString
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("docs-out-\(id)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("docs-err-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                   stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
    }

    /// Runs one shell command line as a user would type it (pipes fail when any part fails).
    static func bash(_ line: String, in folder: URL) throws -> Run {
        try run("/bin/bash", ["-o", "pipefail", "-c", line], in: folder)
    }

    /// Runs a command line that opens the browser, inside a tmux terminal: waits for the
    /// browser's status line, types `q`, and returns the exit status (nil on a timeout).
    static func bashInTerminal(_ line: String, in folder: URL) throws -> (status: Int32?, screen: String) {
        let env = environment(in: folder)
        let script = folder.appendingPathComponent("browse-example.sh")
        let exports = ["PATH", "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NO_COLOR"]
            .map { "export \($0)='\(env[$0] ?? "")'" }.joined(separator: "\n")
        try "\(exports)\nexport LANG=C.UTF-8\ncd '\(folder.path)'\n\(line)\necho $? > browse-status\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let socket = "portal-docs-\(UUID().uuidString.prefix(8))"
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            try Spawn.run("/usr/bin/tmux", ["-L", socket] + arguments)
        }
        defer { _ = try? tmux(["kill-server"]) }
        try tmux(["-u", "new-session", "-d", "-x", "100", "-y", "30", "bash " + script.path])
        var screen = ""
        for _ in 0..<200 {
            screen = try tmux(["capture-pane", "-p"])
            if screen.contains("? help") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        try tmux(["send-keys", "q"])
        let statusFile = folder.appendingPathComponent("browse-status")
        for _ in 0..<100 {
            if let text = try? String(contentsOf: statusFile, encoding: .utf8),
               let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return (status, screen)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return (nil, screen)
    }
}

struct DocsError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
