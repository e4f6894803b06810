import Foundation

/// A small pool of read-only connections, opened on demand up to a maximum. A read borrows one
/// for the duration of its transaction.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [any DatabaseConnection] = []
    private var all: [any DatabaseConnection] = []
    private var isClosed = false
    private let maximum: Int
    private let open: () throws -> any DatabaseConnection

    init(maximum: Int, open: @escaping () throws -> any DatabaseConnection) {
        self.maximum = maximum
        self.open = open
    }

    /// The connection each thread is using now: a read nested in a read on the same thread
    /// reuses it (same snapshot, and no second connection that a full pool could never give).
    /// A list, as short as the pool: a dictionary by thread cost the start of every session a
    /// scan of the runtime's conformances (pthread_t: Hashable; `shell.startup` guards it).
    private var borrowed: [(thread: pthread_t, connection: any DatabaseConnection, snapshot: ReadSnapshot)] = []

    /// Runs `body` with a connection of its own, returning the connection to the pool after.
    /// `nested` is true when the thread was already reading on that connection; `snapshot` is
    /// the same for the reads nested in one borrowing, and new for the next.
    func withConnection<T>(_ body: (_ connection: any DatabaseConnection, _ snapshot: ReadSnapshot, _ nested: Bool) throws -> T)
        throws -> T {
        let (connection, snapshot, nested) = try borrow()
        defer { if !nested { giveBack(connection) } }
        return try body(connection, snapshot, nested)
    }

    /// How many connections the pool has opened or taken.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return all.count
    }

    /// Takes a connection opened already (a store's first, which checked the file) as one of
    /// the pool's.
    func adopt(_ connection: any DatabaseConnection) {
        condition.lock()
        defer { condition.unlock() }
        all.append(connection)
        idle.append(connection)
    }

    private func borrow() throws -> (any DatabaseConnection, ReadSnapshot, Bool) {
        condition.lock()
        defer { condition.unlock() }
        let thread = pthread_self()
        if let entry = borrowed.first(where: { pthread_equal($0.thread, thread) != 0 }) {
            return (entry.connection, entry.snapshot, true)
        }
        let connection = try take()
        let snapshot = ReadSnapshot()
        borrowed.append((thread, connection, snapshot))
        return (connection, snapshot, false)
    }

    /// An idle connection, or a new one, waiting when the pool is at its maximum (lock held).
    private func take() throws -> any DatabaseConnection {
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

    private func giveBack(_ connection: any DatabaseConnection) {
        condition.lock()
        defer { condition.unlock() }
        let thread = pthread_self()
        borrowed.removeAll { pthread_equal($0.thread, thread) != 0 }
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

/// What one read on a read-only connection has learned that cannot change before it ends: the
/// schema's version. The connection writes nothing, and its transaction's snapshot, once taken
/// by the first statement, keeps the schema as it was; so the version is asked once per read,
/// not once per look at the schema. Used on this read's thread only.
final class ReadSnapshot {
    var schemaVersion: Value?
}
