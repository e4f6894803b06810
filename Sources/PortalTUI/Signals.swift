#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP while the browser has the terminal: the handler only records the
/// signal; the main loop (which wakes at least every quarter second) then stops, gives the
/// terminal back, restores the handlers that were there before and raises the signal again, so
/// that it ends the program as it would have without the browser (or reaches the shell's own
/// handler). Without this, ncurses's handler would exit with status 1, or the terminal would be
/// left in raw mode.
enum BrowserSignals {
    nonisolated(unsafe) private static var received: sig_atomic_t = 0
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]
    private static let handled = [SIGTERM, SIGINT, SIGHUP]

    /// The signal that arrived since `install`, or nil.
    static var pending: Int32? { received == 0 ? nil : Int32(received) }

    /// Takes the signals over (before ncurses starts, so that it leaves them to us).
    static func install() {
        received = 0
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in BrowserSignals.received = signal }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0   // no SA_RESTART: a key read in progress returns at once
        for signal in handled {
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    /// Puts the previous handlers back, then raises the signal that arrived, if any.
    static func restoreAndRaise() {
        for signal in handled {
            guard var old = previous[signal] else { continue }
            sigaction(signal, &old, nil)
        }
        previous = [:]
        if let signal = pending {
            received = 0
            raise(signal)
        }
    }
}
