import CSQLite
import PortalEngine
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// The program: takes the command line's configuration, returns the exit status.
public enum PortalShell {
    public static let version = "portal-shell 0.1.0"

    public static func run(_ configuration: Configuration) -> Int32 {
        // Before any database opens (see the functions).
        _ = portal_sqlite_page_cache_on_demand()
        _ = portal_sqlite_memory_statistics_off()
        // A reader that goes away (`| head -1`) must not kill the session: the write that
        // finds the pipe closed fails its command with EPIPE, and `--on-error` says what next.
        signal(SIGPIPE, SIG_IGN)
        let errors = OutputStream(fileDescriptor: 2, capacity: 4096)
        func fail(_ message: String, _ status: Int32) -> Int32 {
            errors.write("error: \(TerminalText.escaped(message))\n")
            errors.flush()
            return status
        }

        if let demoPath = configuration.demoPath {
            do {
                try DemoDatabase.write(to: demoPath, replacing: configuration.force)
                return ExitStatus.success
            } catch let error as ShellError where error.reason == .usage {
                return fail(error.message, ExitStatus.usage)
            } catch {
                return fail("cannot write the demo database to '\(demoPath)': \(error)", ExitStatus.commandFailed)
            }
        }

        if configuration.browse {
            do { try BrowserBridge.requireTerminal() } catch { return fail(error.message, ExitStatus.usage) }
        }

        let scripted = !configuration.exec.isEmpty || configuration.file != nil
        let stdinIsTerminal = isatty(0) == 1
        let interactive = !scripted && !configuration.browse && stdinIsTerminal
        let readsStandardInput = !scripted && !configuration.browse && !stdinIsTerminal

        if let target = configuration.copyTo, configuration.mixedColumns != .refuse, !CopyTo.isPostgresURL(target) {
            return fail("--mixed-columns goes with --copy-to a PostgreSQL URL (SQLite takes every value as it is)", ExitStatus.usage)
        }
        // A PostgreSQL database copied into a new SQLite file; else it opens as a file does.
        if let source = configuration.database, CopyTo.isPostgresURL(source), let target = configuration.copyTo {
            Interrupts.installHandlers()
            return CopyTo.run(from: source, to: target, output: OutputStream(fileDescriptor: 1), errors: errors)
        }

        // The database: given, or the demo in an interactive session.
        var path = configuration.database
        var banner: String?
        if path == nil {
            guard interactive || configuration.browse else {
                return fail("a DATABASE is needed when commands come from --exec, --file or standard input", ExitStatus.usage)
            }
            do {
                let demo = try DemoDatabase.defaultLocation()
                path = demo.path
                banner = demo.created
                    ? "Created the demo database (a fitness tracker) at \(demo.path). Type 'help' to begin."
                    : "The demo database (a fitness tracker): \(demo.path). Type 'help' to begin."
            } catch {
                return fail("cannot create the demo database: \(error)", ExitStatus.cannotOpen)
            }
        }
        guard let path else { return ExitStatus.usage }
        // Signals are caught from here on: one that comes while the file opens or waits for
        // another process's lock ends the session as an interrupted one (130), not killed.
        Interrupts.installHandlers()
        let database: ShellDatabase
        do {
            database = try ShellDatabase(path: path, readOnly: configuration.readOnly, create: configuration.create,
                                         busyTimeout: configuration.busyTimeout, coreData: configuration.coreData)
        } catch {
            if Interrupts.received { return fail("interrupted while opening '\(path)'", ExitStatus.interrupted) }
            return fail(error.message, error.reason.exitStatus)
        }
        defer { database.close() }
        if let target = configuration.copyTo {
            Interrupts.install(database.store)
            return CopyTo.run(database, to: target, mixed: configuration.mixedColumns, output: OutputStream(fileDescriptor: 1), errors: errors)
        }

        let standardOutput = OutputStream(fileDescriptor: 1)
        let stdoutIsTerminal = standardOutput.isTerminal
        let noColor = getenv("NO_COLOR").map { String(cString: $0) }.map { !$0.isEmpty } ?? false
        let color = configuration.color == .always || (configuration.color == .auto && stdoutIsTerminal && !noColor)
        let options = OutputOptions(format: configuration.format ?? (stdoutIsTerminal ? .table : .tsv),
                                    header: configuration.header, nullText: configuration.nullText,
                                    escapeControlCharacters: true, color: color)
        let executor = Executor(database: database, options: options, standardOutput: standardOutput, errors: errors,
                                busyTimeout: configuration.busyTimeout)
        for (name, value) in configuration.parameters { executor.variables[name] = .text(value) }
        executor.browser = BrowserBridge.open

        if configuration.browse {
            var query: Query?
            if let entity = configuration.browseEntity {
                query = Query(entity: Located(entity, 0..<entity.count),
                              predicate: configuration.browseWhere.map { PredicateText($0, offset: 0) })
            }
            // The browser hands SIGINT/SIGTERM on to these handlers once it has given the
            // terminal back: the session then ends as an interrupted one (130).
            Interrupts.install(database.store)
            do {
                try BrowserBridge.open(executor, query)
                return Interrupts.received ? ExitStatus.interrupted : ExitStatus.success
            } catch {
                errors.write(ShellError.from(error).report(command: configuration.browseWhere ?? ""))
                errors.flush()
                return ExitStatus.commandFailed
            }
        }

        if let coreData = database.coreDataBanner {
            // What was ignored is said in every session; the rest only where someone reads it.
            if interactive { banner = [banner, coreData.text].compactMap { $0 }.joined(separator: "\n") }
            else if !coreData.ignored.isEmpty { errors.write("note: " + coreData.ignored + "\n"); errors.flush() }
        }
        if interactive {
            if let banner { executor.report(banner) }
            return REPL(executor: executor, configuration: configuration).run()
        }

        Interrupts.install(database.store)
        // Standard input is read as it comes: a command runs once its line has arrived, as
        // psql does with a pipe, instead of at the end of input.
        var inputs: [(run: () -> Bool, stopsAfterFailure: Bool)] = configuration.exec.map { text in
            ({ executor.run(text, stopOnError: configuration.stopOnError) }, true)
        }
        var inputError: Int32?
        if let file = configuration.file, file != "-" {
            guard let text = readTextFile(file) else {
                return fail("cannot read '\(file)': \(String(cString: strerror(errno)))", ExitStatus.commandFailed)
            }
            inputs.append(({ executor.run(text, stopOnError: configuration.stopOnError, source: file) }, true))
        } else if configuration.file == "-" || readsStandardInput {
            let source = configuration.file == nil ? nil : "<stdin>"
            inputs.append(({
                executor.run(stopOnError: configuration.stopOnError, source: source) {
                    StandardInput.nextPiece(error: &inputError)
                }
            }, true))
        }
        var failed = false
        for input in inputs {
            if !input.run() {
                failed = true
                if configuration.stopOnError || executor.lastErrorWasInterrupt { break }
            }
            if executor.quitRequested { break }
        }
        if let inputError {
            errors.write("error: cannot read standard input: \(String(cString: strerror(inputError)))\n")
            errors.flush()
            failed = true
        }
        if !executor.flushRemainingOutput() { failed = true }
        // 130 only when the signal stopped something: a command (whose write rolled back) or
        // the commands after it. A signal after the last command finished (its write committed)
        // changes nothing, so the run succeeded.
        if executor.lastErrorWasInterrupt {
            database.abandon()
            return ExitStatus.interrupted
        }
        if executor.rollBackUnfinishedTransaction() { return ExitStatus.commandFailed }
        if !failed { return ExitStatus.success }
        return executor.usageErrorSeen ? ExitStatus.usage : ExitStatus.commandFailed
    }
}


/// Standard input in the pieces a read returns: a pipe's lines as they are written.
enum StandardInput {
    /// The next piece, nil at the end of input, on a signal (the run then stops as
    /// interrupted) or on an error (set in `error`).
    static func nextPiece(error: inout Int32?) -> [UInt8]? {
        var piece = [UInt8](repeating: 0, count: Executor.pieceSize)
        while true {
            let n = piece.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n > 0 { return Array(piece[0..<n]) }
            if n == 0 { return nil }
            if errno == EINTR && !Interrupts.received { continue }
            if errno != EINTR { error = errno }
            return nil
        }
    }
}
