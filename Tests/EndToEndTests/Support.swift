import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `portal-shell` binary and captures what it did.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Shell {
    /// <repo root>, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PORTAL_SHELL_BIN"], !path.isEmpty { return path }
        return repository.appendingPathComponent(".build/debug/portal-shell").path
    }

    /// The Chinook database shipped with the project (Tests/Fixtures/chinook, MIT): copy before writing.
    static let chinook = repository.appendingPathComponent("Tests/Fixtures/chinook/Chinook_Sqlite.sqlite").path

    static let expected = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Expected")

    /// Runs the binary with `arguments`, `input` on standard input, extra environment.
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), inp = Pipe()
        // Standard error goes to a file: reading two pipes would need two threads.
        let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errPath) }
        let err = try FileHandle(forWritingTo: errPath)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        try err.close()
        if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
        try inp.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errData = (try? Data(contentsOf: errPath)) ?? Data()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh folder with a writable copy of Chinook in it.
    static func chinookCopy() throws -> (folder: URL, database: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("chinook.sqlite")
        try FileManager.default.copyItem(atPath: chinook, toPath: database.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database.path)
        return (folder, database.path)
    }

    static func expectedText(_ name: String) throws -> String {
        try String(contentsOf: expected.appendingPathComponent(name), encoding: .utf8)
    }
}

/// A suite that works on its own copy of Chinook (`db`): `run` runs commands on it.
protocol ChinookCopySuite {
    var db: String { get }
}

extension ChinookCopySuite {
    func run(_ commands: String, _ extra: [String] = []) throws -> Run {
        try Shell.run([db, "-e", commands] + extra)
    }
}

/// Runs programs that start daemons (tmux) or need signals (the browser) under test.
enum Spawn {
    /// Runs `executable` with posix_spawn and waitpid, and returns its standard output when
    /// `capture`. Foundation's Process did not reap a tmux client here, and a tmux server would
    /// keep an output pipe open forever: output goes through a temporary file instead. The
    /// signal mask is cleared, because test runners block signals (SIGCHLD, SIGWINCH, …) that a
    /// tmux server and the browser inherit and need. LANG is C.UTF-8 and TERM a real terminal.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], capture: Bool = true) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-out-\(UUID().uuidString)").path
        defer { unlink(output) }
        let pid = try start(executable, arguments, stdout: capture ? output : "/dev/null")
        _ = wait(pid)
        guard capture else { return "" }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Starts `executable` as `run` does, with standard output and error written to the files
    /// named, and returns its process id without waiting (for signals sent from the test).
    static func start(_ executable: String, _ arguments: [String], stdout: String, stderr: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        if (environment["TERM"] ?? "").isEmpty || environment["TERM"] == "dumb" { environment["TERM"] = "xterm-256color" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(message: "cannot run \(executable): error \(spawned)") }
        return pid
    }

    /// Waits for `pid` and returns its exit status as a shell shows it (128 + N when signal N
    /// killed it).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

struct SpawnError: Error { var message: String }
