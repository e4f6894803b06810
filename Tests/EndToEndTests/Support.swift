import Foundation
@_exported import DifferentialSupport
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

