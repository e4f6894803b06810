import PortalEngine
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// Runs commands against the session's database and writes their results. The REPL, scripted
/// runs and the browser's `:` all go through `run(_:)`.
public final class Executor {
    var database: ShellDatabase?
    var options: OutputOptions
    /// Whether the format was chosen by the user (`--format`, `mode`), or follows the output.
    var variables: [String: Value] = [:]
    var timer = false
    var output: OutputStream
    /// The file `output PATH` sends results to; nil for standard output.
    private(set) var outputPath: String?
    let standardOutput: OutputStream
    var errors: OutputStream
    /// Asks the user a yes/no question; nil in scripted runs (no confirmation there).
    var confirm: ((String) -> Bool)?
    /// Set by the `quit` command.
    private(set) var quitRequested = false
    /// How many `read` files deep we are (a file that reads itself must stop somewhere).
    private var readDepth = 0
    let busyTimeout: Int
    /// The warnings about the predicates compiled by the running command (`explain` lists them).
    var predicateWarnings: [String] = []
    /// The NSPredicate text of each Swift closure the running command compiled (`explain` shows it).
    var predicateEquivalents: [String] = []
    /// Opens the browser; set by `PortalShell` when the TUI is available.
    var browser: ((Executor, Query?) throws -> Void)?

    init(database: ShellDatabase?, options: OutputOptions, standardOutput: OutputStream, errors: OutputStream,
         busyTimeout: Int) {
        self.database = database
        self.options = options
        self.output = standardOutput
        self.standardOutput = standardOutput
        self.errors = errors
        self.busyTimeout = busyTimeout
    }

    /// Runs every command in `text`; returns false when one failed. With `stopOnError`, stops
    /// at the first failure. Errors are reported on the error stream. `source` names the file
    /// the text came from (`-f`, `read`): errors then say its name and the command's line.
    @discardableResult
    public func run(_ text: String, stopOnError: Bool = true, source: String? = nil) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        return run(stopOnError: stopOnError, source: source) {
            guard offset < bytes.count else { return nil }
            defer { offset = min(bytes.count, offset + Self.pieceSize) }
            return Array(bytes[offset..<min(bytes.count, offset + Self.pieceSize)])
        }
    }

    /// How much input is split between two looks at the signal flag: a command of megabytes
    /// (a predicate of a million terms) is cut up in a fraction of a second, and a signal that
    /// comes meanwhile stops the run.
    static let pieceSize = 1 << 16

    /// Runs the commands in the input `nextPiece` hands out, each as soon as it is complete
    /// (a pipe's lines run as they arrive); nil from `nextPiece` is the end of input.
    func run(stopOnError: Bool, source: String?, reading nextPiece: () -> [UInt8]?) -> Bool {
        var splitter = InputSplitter(looksAhead: true)
        var ok = true
        func runAll(_ commands: [InputSplitter.Piece]) -> Bool {
            for (command, line) in commands {
                if quitRequested { return false }
                if Interrupts.received && confirm == nil {
                    lastErrorWasInterrupt = true
                    ok = false
                    return false
                }
                if !runOne(command, location: source.map { "\($0):\(line)" }) {
                    ok = false
                    if stopOnError || lastErrorWasInterrupt { return false }
                }
            }
            return true
        }
        while true {
            if Interrupts.received && confirm == nil {
                lastErrorWasInterrupt = true
                return false
            }
            guard let piece = nextPiece() else { break }
            let commands = piece.withUnsafeBufferPointer { splitter.feed($0) }
            guard runAll(commands) else { return ok }
        }
        var last: [InputSplitter.Piece] = []
        if let pending = splitter.finish(into: &last) { last.append(pending) }
        _ = runAll(last)
        return ok
    }

    /// True when the last failure was an interrupt (scripted runs then exit 130).
    private(set) var lastErrorWasInterrupt = false
    /// True once a command failed as a usage error (`browse` without a terminal): exit status 2.
    private(set) var usageErrorSeen = false
    /// The last command's failure as it was reported, the engine's error it wraps kept.
    private(set) var lastError: ShellError?

    /// Takes back a `quit` (the user chose to stay in the session).
    func cancelQuit() { quitRequested = false }

    /// At the end of a scripted run, a transaction begun with `begin` and never committed is
    /// rolled back, and the run fails saying so (a script that forgot `commit` must not look
    /// as if its writes were kept). True when there was one.
    func rollBackUnfinishedTransaction() -> Bool {
        guard let database, database.inUserTransaction else { return false }
        database.abandon()
        report("error: the transaction opened by 'begin' was never committed: rolled back, nothing of it was written")
        return true
    }

    /// Parses and runs one command, reporting its error (after `location`, `FILE:LINE`, when
    /// the command came from a file); false when it failed.
    func runOne(_ text: String, location: String? = nil) -> Bool {
        let started = Self.now()
        let output = self.output
        let flushedBefore = output.flushedCount
        defer {
            noteCollationStandIns(errors)
            if timer {
                let milliseconds = Double(Self.now() - started) / 1_000_000
                report("time: \(formatMilliseconds(milliseconds))")
            }
        }
        do {
            // A command of megabytes takes seconds to parse and compile: its lexers, parsers and
            // compiler ask the signal flag as they go (`PredicateInterruption`), and stop.
            guard let command = try CommandParser.parse(text) else { return true }
            try Self.stopIfInterrupted()
            predicateWarnings = []
            predicateEquivalents = []
            try database?.refreshSchema()
            try execute(command)
            try flushOutput()
            return true
        } catch {
            // Nothing of a failed command reaches the output (a header, the rows before a
            // runtime error): the output is flushed after each command, so what is buffered
            // is this command's. A result longer than the buffer (64 KiB) has already sent its
            // start: its rest goes out too, so that the output ends with a whole line.
            if output.flushedCount == flushedBefore { output.discardBuffered() }
            try? flushOutput()
            let shellError = ShellError.from(error)
            lastError = shellError
            lastErrorWasInterrupt = shellError.reason == .interrupted
            if shellError.reason == .usage { usageErrorSeen = true }
            if let location { errors.write(TerminalText.escaped(location) + ": ") }
            errors.write(shellError.report(command: text))
            errors.flush()
            return false
        }
    }

    private func formatMilliseconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// Sends what the command printed. A write that failed (a full disk, a closed pipe) fails
    /// the command: its results did not arrive. The error is taken, so it is said once.
    func flushOutput() throws {
        output.flush()
        if let code = output.takeWriteError() {
            throw ShellError("writing \(outputPath.map { "'\($0)'" } ?? "the output") failed: \(String(cString: strerror(code)))")
        }
    }

    /// Sends what is left at the end of a session; false (said on the error stream) when it failed.
    func flushRemainingOutput() -> Bool {
        do {
            try flushOutput()
            return true
        } catch {
            errors.write(ShellError.from(error).report(command: ""))
            errors.flush()
            return false
        }
    }

    /// A line on the error stream (write summaries, notes), escaped: it may name entities or
    /// files, whose names can hold control characters.
    func report(_ line: String) {
        output.flush()
        errors.write(TerminalText.escaped(line))
        errors.write(10)
        errors.flush()
    }

    /// Throws `interrupted` once SIGINT or SIGTERM has come (the running command stops).
    static func stopIfInterrupted() throws {
        if Interrupts.received { throw PortalError(.interrupted, "interrupted") }
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    func requireDatabase() throws -> ShellDatabase {
        guard let database else { throw ShellError("no database is open (use 'open PATH')") }
        return database
    }

    func execute(_ command: Command) throws {
        switch command {
        case .find(let query): try find(query, limitOne: false)
        case .first(let query): try find(query, limitOne: true)
        case .count(let entity, let predicate): try count(entity, predicate)
        case .get(let entity, let ids): try get(entity, ids)
        case .explain(let inner): try explain(inner)
        case .entities: try entities()
        case .schemas: try list(.schemas)
        case .databases: try list(.databases)
        case .describe(let entity): try describe(entity)
        case .schema(let entity, let sql): try schema(entity, sql: sql)
        case .create(let entity, let values): try create(entity, values, upsert: false)
        case .upsert(let entity, let values): try create(entity, values, upsert: true)
        case .update(let entity, let values, let predicate): try update(entity, values, predicate)
        case .delete(let entity, let predicate): try delete(entity, predicate)
        case .importData(let entity, let path, let format): try importData(entity, path: path, format: format)
        case .export(let query, let path, let format): try export(query, path: path, format: format)
        case .begin: try requireDatabase().begin()
        case .commit: try requireDatabase().commit()
        case .rollback: try requireDatabase().rollback()
        case .setVariable(let name, let literal): variables[name] = try value(of: literal, range: nil)
        case .variables: listVariables()
        case .mode(let format): options.format = format
        case .headers(let on): options.header = on
        case .null(let text): options.nullText = text
        case .timer(let on): timer = on
        case .output(let path): try redirect(to: path)
        case .read(let path): try read(path)
        case .open(let path): try open(path)
        case .browse(let query): try browse(query)
        case .generateSwift(let entities): try generateSwift(entities)
        case .sql(let statement): try sql(statement)
        case .notify(let on): try notify(on)
        case .relate(let from, let to): try relate(from, to)
        case .relations: try listRelations()
        case .unrelate(let from): try unrelate(from)
        case .help(let topic): output.write(Help.text(for: topic))
        case .quit: quitRequested = true
        }
    }

    // MARK: Session commands

    func value(of literal: Literal, range: Range<Int>?) throws -> Value {
        switch literal {
        case .value(let value): return value
        case .variable(let name):
            guard let value = variables[name] else {
                let known = closestName(to: name, among: Array(variables.keys)).map { " (did you mean '$\($0)'?)" } ?? ""
                throw ShellError("unknown variable '$\(name)'\(known)", range)
            }
            return value
        }
    }

    private func listVariables() {
        let renderer = makeRenderer(options, stream: output)
        renderer.begin(columns: ["name", "value"])
        for name in variables.keys.sorted() { renderer.row([.text("$" + name), variables[name] ?? .null]) }
        renderer.end()
    }

    private func redirect(to path: String?) throws {
        if let path { try database?.refuseOwnFile(path, "send output to") }
        if output !== standardOutput {
            let code = output.close()
            let previous = outputPath ?? "the output file"
            output = standardOutput
            outputPath = nil
            if let code { throw ShellError("writing '\(previous)' failed: \(String(cString: strerror(code)))") }
        }
        guard let path else { return }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        output = OutputStream(fileDescriptor: fd, ownsDescriptor: true)
        outputPath = path
    }

    private func read(_ path: String) throws {
        guard readDepth < 16 else { throw ShellError("'read' nested too deeply (does '\(path)' read itself?)") }
        guard let text = readTextFile(path) else {
            throw ShellError("cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        readDepth += 1
        defer { readDepth -= 1 }
        if !run(text, stopOnError: true, source: path) {
            throw ShellError("'read \(path)' stopped at the failing command above")
        }
    }

    private func open(_ path: String) throws {
        if database?.inUserTransaction == true {
            throw ShellError("a transaction is open: 'commit' or 'rollback' it before opening another database")
        }
        let readOnly = database?.isReadOnly ?? false
        let opened: ShellDatabase
        do {
            opened = try ShellDatabase(path: path, readOnly: readOnly, create: false, busyTimeout: busyTimeout)
        } catch {
            throw ShellError(error.message)
        }
        database?.close()
        database = opened
        if Interrupts.isInstalled { Interrupts.install(opened.store) }
    }

    private func browse(_ query: Query?) throws {
        guard let browser else {
            throw ShellError("the full-screen browser is not available in this build")
        }
        try browser(self, query)
    }
}

/// The whole content of a file as text (`-`: standard input), nil (errno set) when it cannot be read.
func readTextFile(_ path: String) -> String? {
    readFileBytes(path, dashIsStandardInput: true).map { String(decoding: $0, as: UTF8.self) }
}

/// The whole content of a file, nil (errno set) when it cannot be read; `-` is standard input
/// when `dashIsStandardInput`.
func readFileBytes(_ path: String, dashIsStandardInput: Bool = false) -> [UInt8]? {
    let fromStandardInput = dashIsStandardInput && path == "-"
    let fd = fromStandardInput ? 0 : Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { if !fromStandardInput { Glibc.close(fd) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if n == 0 { return bytes }
        bytes.append(contentsOf: chunk[0..<n])
    }
}
