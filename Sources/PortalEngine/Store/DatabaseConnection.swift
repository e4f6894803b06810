import PortalPredicate

// The connection seam: what the engine asks of a database connection. SQLite's C API is the first
// implementation (SQLite/Connection.swift); a server client (libpq) has the same blocking shape.

/// How a transaction starts: `deferred` takes no lock until the first statement needs one (reads);
/// `immediate` takes the write lock at once, so that a write never fails half-way for a lock.
public enum TransactionStart: Sendable {
    case deferred, immediate
}

/// One connection to a database: statements prepared and run on it, transaction control, the
/// effects of the last write, and an interrupt that may come from any thread.
public protocol DatabaseConnection: AnyObject {
    /// A prepared statement of this connection.
    associatedtype PreparedStatement: DatabaseStatement

    /// `sql` prepared (from the connection's cache when it was prepared before).
    func prepare(_ sql: String) throws -> PreparedStatement
    /// One or more statements without bindings, rows discarded.
    func execute(_ sql: String) throws
    /// Makes the running statement stop with `.interrupted`. Callable from any thread.
    func interrupt()
    /// Opens a transaction.
    func begin(_ start: TransactionStart) throws
    /// Commits the open transaction.
    func commit() throws
    /// Rolls the open transaction back.
    func rollback() throws
    /// Marks a point inside the open transaction that `rollback(toSavepoint:)` returns to.
    func savepoint(_ name: String) throws
    /// Forgets the savepoint, keeping what was done since.
    func release(savepoint name: String) throws
    /// Undoes what was done since the savepoint, which stays.
    func rollback(toSavepoint name: String) throws
    /// True while a transaction is open.
    var isInTransaction: Bool { get }
    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }
    /// The id of the row the last INSERT inserted.
    var lastInsertRowid: Int64 { get }
}

/// A prepared statement: bound, stepped row by row, its columns read, reset for another run.
public protocol DatabaseStatement: AnyObject {
    /// Binds `values` to the parameters in order.
    func bind(_ values: [Value]) throws
    /// Advances to the next row; false when there is none (the statement is done).
    func step() throws -> Bool
    /// How many columns each row has.
    var columnCount: Int { get }
    /// The name of column `index`.
    func columnName(_ index: Int) -> String
    /// The value of column `index` of the current row.
    func value(at index: Int32) -> Value
    /// Makes the statement ready to run again (bindings cleared).
    func reset()
}
