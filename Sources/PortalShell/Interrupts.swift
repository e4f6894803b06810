import Foundation
import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM: the handler only records the signal and wakes a watcher thread (a signal
/// handler may call nothing that takes a lock), which calls `Store.interrupt()` on the session's
/// store: the statement running stops and its write rolls back. The store also polls the flag
/// (`interruptRequested`) between the statements of a write, before its commit and while it waits
/// for a lock, so a signal that comes between two statements is not lost. Scripted runs then exit
/// 130; the REPL cancels the line or the command and prompts again.
enum Interrupts {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0
    /// Posted by the handler (`sem_post` is async-signal-safe), awaited by the watcher.
    nonisolated(unsafe) private static var wakeUp = sem_t()
    nonisolated(unsafe) private static var watcherStarted = false
    /// The store to interrupt, guarded by `lock` so that it is never interrupted while it closes.
    nonisolated(unsafe) private static var store: Store?
    /// What else stops at a signal while it runs (a copy's PostgreSQL statement), under `lock`.
    nonisolated(unsafe) private static var canceller: (@Sendable () -> Void)?
    private static let lock = NSLock()

    static var received: Bool { flag != 0 }
    static var isInstalled: Bool { watcherStarted }
    /// True when the signal was SIGTERM (the REPL then quits instead of prompting again).
    static var terminated: Bool { flag == SIGTERM }

    /// What the session's stores poll (`StoreOptions.interruptRequested`).
    static let interruptRequested: @Sendable () -> Bool = { Interrupts.received }

    /// Makes signals interrupt `store` (called again when the session opens another database).
    static func install(_ store: Store) {
        lock.lock()
        Interrupts.store = store
        lock.unlock()
        installHandlers()
    }

    /// Catches SIGINT and SIGTERM from now on: called before the database opens, so that a
    /// signal while opening or waiting for a lock ends the session as an interrupted one (130)
    /// instead of killing it.
    static func installHandlers() {
        guard !watcherStarted else { return }
        watcherStarted = true
        // Long parses and compiles ask the same flag.
        PredicateInterruption.requested = interruptRequested
        sem_init(&wakeUp, 0, 0)
        // The watcher never takes the signals itself (it inherits this mask): they must reach
        // the main thread, whose read at the prompt they cut short.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        // A plain POSIX thread: Foundation's `Thread` costs a one-line command's start-up the
        // pages of its own machinery, for a thread that only waits.
        var watcher = pthread_t()
        if pthread_create(&watcher, nil, { _ in
            while true {
                while sem_wait(&Interrupts.wakeUp) != 0 {}   // EINTR: wait again
                Interrupts.lock.lock()
                Interrupts.store?.interrupt()
                Interrupts.canceller?()
                Interrupts.lock.unlock()
            }
        }, nil) == 0 {
            pthread_detach(watcher)
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            Interrupts.flag = signal
            sem_post(&Interrupts.wakeUp)
        }
        sigemptyset(&action.sa_mask)
        // No SA_RESTART: a read at the prompt returns, so Ctrl-C cancels the line.
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with these signals blocked (Foundation's Process does).
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Runs `body` with `cancel` called at a signal (from the watcher thread) as the store is:
    /// a PostgreSQL statement then stops at once instead of at its end.
    static func cancelling<T>(with cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        lock.withLock { canceller = cancel }
        defer { lock.withLock { canceller = nil } }
        // A signal that came before the canceller was set is heard too.
        if received { cancel() }
        return try body()
    }

    /// SIGHUP too (the terminal went away), for a run that must undo its work rather than be
    /// killed half-way: a copy, which then removes what it wrote.
    static func catchHangUp() {
        installHandlers()
        var action = sigaction()
        sigaction(SIGINT, nil, &action)
        sigaction(SIGHUP, &action, nil)
    }

    /// Stops interrupting `store` (before it closes).
    static func forget(_ store: Store) {
        lock.lock()
        if Interrupts.store === store { Interrupts.store = nil }
        lock.unlock()
    }

    static func reset() { flag = 0 }

    /// True (and cleared) when a signal arrived since the last reset.
    static func consume() -> Bool {
        defer { flag = 0 }
        return flag != 0
    }
}
