import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Child processes for the tests (the shell's end-to-end tests, a test's own PostgreSQL server).

/// Runs programs the way the tests need.
public enum Spawn {
    /// Runs `executable` with posix_spawn and waitpid, and returns its standard output when
    /// `capture`. Foundation's Process did not reap a tmux client here, and a tmux server would
    /// keep an output pipe open forever: output goes through a temporary file instead. The
    /// signal mask is cleared, because test runners block signals (SIGCHLD, SIGWINCH, …) that a
    /// tmux server and the browser inherit and need. LANG is C.UTF-8 and TERM a real terminal.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], capture: Bool = true) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-out-\(UUID().uuidString)").path
        defer { unlink(output) }
        let pid = try start(executable, arguments, stdout: capture ? output : "/dev/null")
        _ = wait(pid)
        guard capture else { return "" }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Starts `executable` as `run` does, with standard output and error written to the files
    /// named, and returns its process id without waiting (for signals sent from the test).
    public static func start(_ executable: String, _ arguments: [String], stdout: String, stderr: String = "/dev/null") throws -> pid_t {
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
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// A program that could not be started.
public struct SpawnError: Error {
    public var message: String
    public init(message: String) { self.message = message }
}
