import PortalEngine
import PortalPostgres
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// `--copy-to TARGET`: every table of the database into a PostgreSQL database (a `postgres://`
/// or `postgresql://` URL) or a new SQLite file; a line per table at the end, progress on a
/// terminal. Returns the exit status: 3 when the target cannot be reached, 130 when interrupted.
enum CopyTo {
    static func run(_ database: ShellDatabase, to target: String, output: OutputStream, errors: OutputStream) -> Int32 {
        let showsProgress = isatty(2) == 1
        var lastShown = ""
        func progress(_ entity: String, _ copied: Int, _ total: Int) {
            guard showsProgress else { return }
            lastShown = "copying \(entity): \(copied) of \(total) rows"
            errors.write("\r\u{1B}[K" + lastShown)
            errors.flush()
        }
        func fail(_ message: String, _ status: Int32) -> Int32 {
            if !lastShown.isEmpty { errors.write("\n") }
            errors.write("error: \(TerminalText.escaped(message))\n")
            errors.flush()
            return status
        }
        do {
            let copied: [(String, Int)]
            if isPostgresURL(target) {
                copied = try PostgresCopy(to: target).copy(from: database.store, progress: progress,
                                                           interrupted: { Interrupts.received })
            } else {
                copied = try database.store.copy(to: target)
            }
            if !lastShown.isEmpty { errors.write("\r\u{1B}[K") }
            errors.flush()
            for (entity, rows) in copied { output.write("\(entity)\t\(rows)\n") }
            output.flush()
            return ExitStatus.success
        } catch let error as PortalError {
            switch error.kind {
            case .interrupted: return fail("\(error.message); the table in flight was rolled back", ExitStatus.interrupted)
            case .cannotOpen: return fail(error.message, ExitStatus.cannotOpen)
            default: return fail(error.message, ExitStatus.commandFailed)
            }
        } catch {
            return fail("\(error)", ExitStatus.commandFailed)
        }
    }

    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }
}
