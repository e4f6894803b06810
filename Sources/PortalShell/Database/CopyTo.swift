import PortalEngine
import PortalSQLite
import PortalPostgres
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// `--copy-to TARGET`: every table of the database into a PostgreSQL database (a `postgres://`
/// or `postgresql://` URL) or a new SQLite file, or of a PostgreSQL database into a new SQLite
/// file; a line per table at the end, progress on a terminal. All or nothing: PostgreSQL's copy
/// is one transaction, a new file is removed when the copy fails. Returns the exit status: 3
/// when the server cannot be reached or goes away, 130 at a signal (SIGHUP too: the copy is
/// undone, not left half-made), 1 for data that does not fit.
enum CopyTo {
    /// From an open SQLite database into PostgreSQL or a new SQLite file.
    static func run(_ database: ShellDatabase, to target: String, mixed: Configuration.MixedColumns,
                    output: OutputStream, errors: OutputStream) -> Int32 {
        // A Core Data store's entities share tables: a copy is of the tables themselves.
        if database.coreDataBanner != nil {
            errors.write("error: a Core Data store is copied as its plain tables: add --raw\n")
            errors.flush()
            return ExitStatus.usage
        }
        Interrupts.catchHangUp()
        let undone = isPostgresURL(target) ? "nothing was copied" : "the new file was removed"
        defer { noteCollationStandIns(errors) }
        return report(output: output, errors: errors, undone: undone) { progress in
            if isPostgresURL(target) {
                let copy = try PostgresCopy(to: target)
                return try Interrupts.cancelling(with: copy.canceller) {
                    try copy.copy(from: database.store, mixed: mixed, progress: progress, interrupted: { Interrupts.received },
                                  note: { errors.write("note: " + TerminalText.escaped($0) + "\n") })
                }
            }
            return try database.store.copy(to: target)
        }
    }

    /// From a PostgreSQL database into a new SQLite file.
    static func run(from source: String, to target: String, output: OutputStream, errors: OutputStream) -> Int32 {
        guard !isPostgresURL(target) else {
            errors.write("error: --copy-to from one PostgreSQL database to another: use pg_dump\n")
            errors.flush()
            return ExitStatus.usage
        }
        Interrupts.catchHangUp()
        return report(output: output, errors: errors, undone: "the new file was removed") { progress in
            let export = try PostgresExport(from: source)
            return try Interrupts.cancelling(with: export.canceller) {
                try export.copy(to: target, progress: progress, interrupted: { Interrupts.received },
                                note: { errors.write("note: " + TerminalText.escaped($0) + "\n") })
            }
        }
    }

    /// Runs `copy` with progress on a terminal, then prints a line per table; the exit status.
    /// `undone` says what an interrupted copy leaves.
    private static func report(output: OutputStream, errors: OutputStream, undone: String,
                               _ copy: (PostgresCopy.Progress) throws -> [(String, Int)]) -> Int32 {
        let line = ProgressLine(errors, enabled: isatty(2) == 1)
        func progress(_ entity: String, _ copied: Int, _ total: Int) {
            line.show("copying \(TerminalText.escaped(entity)): \(copied) of \(total) rows")
        }
        func fail(_ message: String, _ status: Int32) -> Int32 {
            line.finish()
            errors.write("error: \(TerminalText.escaped(message))\n")
            errors.flush()
            return status
        }
        do {
            let copied = try copy(progress)
            line.finish()
            for (entity, rows) in copied { output.write("\(TerminalText.escaped(entity))\t\(rows)\n") }
            output.flush()
            return ExitStatus.success
        } catch let error as PortalError {
            // After a signal, whatever failed first (a statement cancelled, a read stopped) was the signal's doing.
            if error.kind == .interrupted || Interrupts.received {
                return fail("\(error.message); \(undone)", ExitStatus.interrupted)
            }
            switch error.kind {
            case .cannotOpen: return fail(error.message, ExitStatus.cannotOpen)
            default: return fail(error.message, ExitStatus.commandFailed)
            }
        } catch {
            return fail("\(error)", ExitStatus.commandFailed)
        }
    }

    static func isPostgresURL(_ text: String) -> Bool {
        PostgresServer.isConnectionString(text)
    }
}

/// Says which collations the database names that this program lacks, and what stood in for
/// them (`CollationFallback`), once each, when a command first needed them.
func noteCollationStandIns(_ errors: OutputStream) {
    for standIn in CollationFallback.takeNew() {
        errors.write("note: the collation '\(TerminalText.escaped(standIn.name))' is not known here: "
                     + "its texts are compared in \(standIn.fallback) instead\n")
    }
    errors.flush()
}
