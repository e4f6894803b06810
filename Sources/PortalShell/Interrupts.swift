import CSQLite
import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM: the handler only records the signal and interrupts the statement running
/// on the session's connection (its write then rolls back). Scripted runs then exit 130; the
/// REPL cancels the line or the command and prompts again.
enum Interrupts {
    nonisolated(unsafe) private static var connectionHandle: OpaquePointer?
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0

    static var received: Bool { flag != 0 }
    static var isInstalled: Bool { connectionHandle != nil }
    /// True when the signal was SIGTERM (the REPL then quits instead of prompting again).
    static var terminated: Bool { flag == SIGTERM }

    static func install(_ connection: Connection) {
        connectionHandle = connection.handle
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            Interrupts.flag = signal
            if let handle = Interrupts.connectionHandle { sqlite3_interrupt(handle) }
        }
        sigemptyset(&action.sa_mask)
        // No SA_RESTART: a read at the prompt returns, so Ctrl-C cancels the line.
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with these signals blocked (Foundation's Process does).
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    static func reset() { flag = 0 }

    /// True (and cleared) when a signal arrived since the last reset.
    static func consume() -> Bool {
        defer { flag = 0 }
        return flag != 0
    }
}
