import Foundation

/// The connection an async task's read or write is running on, so that cancelling the task
/// stops that connection's statements alone (not every reader of the store).
///
/// A cancel can come at any moment, also just before a statement starts, when
/// an interrupt would be lost: so while the task runs, a local connection (SQLite's progress
/// handler) asks the (sticky) flag every few hundred instructions, and the cancel also interrupts a
/// running statement or a wait for a lock at once.
final class TaskRun: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: (any DatabaseConnection)?
    private var cancelled = false

    private var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Runs `body` while a cancel stops `connection`'s statements. A task cancelled before it got
    /// a connection does not start.
    func during<T>(_ connection: any DatabaseConnection, _ body: () throws -> T) throws -> T {
        lock.lock()
        let alreadyCancelled = cancelled
        if !alreadyCancelled { self.connection = connection }
        lock.unlock()
        if alreadyCancelled { throw PortalError(.interrupted, "cancelled") }
        defer {
            lock.lock()
            self.connection = nil
            lock.unlock()
        }
        // A local connection (SQLite's progress handler) also catches a cancel that comes just
        // before a statement starts; a server's statement is cancelled by `interrupt` (PQcancel) alone.
        guard let local = connection as? any LocalDatabaseConnection else { return try body() }
        return try local.stopping(when: { [self] in isCancelled }, body)
    }

    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        connection?.interrupt()
    }
}
