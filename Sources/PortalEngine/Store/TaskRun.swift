import Foundation

/// The connection an async task's read or write is running on, so that cancelling the task
/// interrupts that connection alone (not every reader of the store).
final class TaskRun: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: Connection?
    private var cancelled = false

    /// Runs `body` while `connection` is the one a cancel interrupts. A task cancelled before it
    /// got a connection does not start.
    func during<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
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
        return try body()
    }

    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        connection?.interrupt()
    }
}
