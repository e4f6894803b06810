import Foundation

/// A small pool of read-only connections, opened on demand up to a maximum. A read borrows one
/// for the duration of its transaction.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var all: [Connection] = []
    private var isClosed = false
    private let maximum: Int
    private let open: () throws -> Connection

    init(maximum: Int, open: @escaping () throws -> Connection) {
        self.maximum = maximum
        self.open = open
    }

    /// Runs `body` with a connection of its own, returning the connection to the pool after.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    private func borrow() throws -> Connection {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isClosed { throw PortalError.misuse("the store is closed") }
            if let connection = idle.popLast() { return connection }
            if all.count < maximum {
                let connection = try open()
                all.append(connection)
                return connection
            }
            condition.wait()
        }
    }

    private func giveBack(_ connection: Connection) {
        condition.lock()
        defer { condition.unlock() }
        if isClosed {
            connection.close()
        } else {
            idle.append(connection)
            condition.signal()
        }
    }

    /// Interrupts the statements running on every connection (thread-safe in SQLite).
    func interruptAll() {
        condition.lock()
        defer { condition.unlock() }
        for connection in all { connection.interrupt() }
    }

    /// Closes the idle connections now and the borrowed ones when they come back.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        for connection in idle { connection.close() }
        idle.removeAll()
        all.removeAll()
        condition.broadcast()
    }
}
