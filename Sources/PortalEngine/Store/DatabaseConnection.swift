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
    /// How many rows every write since the connection opened changed.
    var totalChanges: Int { get }

    /// `sql` prepared for one use (user-typed text), not kept in a cache.
    func prepareUncached(_ sql: String) throws -> PreparedStatement
    /// Prepares each statement of `sql` (separated by `;`) in turn and hands it to `body`.
    func forEachStatement(_ sql: String, _ body: (any DatabaseStatement) throws -> Void) throws
    /// Closes the connection (idempotent).
    func close()
}

extension DatabaseConnection {
    /// The first column of the first row of `sql`, or nil when there is no row.
    public func scalar(_ sql: String, _ bindings: [Value] = []) throws -> Value? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Every row of `sql`.
    public func rows(_ sql: String, _ bindings: [Value] = []) throws -> [Row] {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        return try statement.rows()
    }

    /// Runs one statement with bindings, discarding rows.
    public func run(_ sql: String, _ bindings: [Value] = []) throws {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
    }

    /// A server prepares each text once per connection anyway: the same as `prepare`.
    public func prepareUncached(_ sql: String) throws -> PreparedStatement { try prepare(sql) }
}

/// A prepared statement: bound, stepped row by row, its columns read, reset for another run.
public protocol DatabaseStatement: AnyObject {
    /// Binds `values` to the parameters in order.
    func bind(_ values: [Value]) throws
    /// Binds the values in `values` to the parameters in order, read where they are (a statement
    /// that can; others bind an array of them).
    func bind(_ values: UnsafeBufferPointer<Value>) throws
    /// Binds `fields` to the parameters in order (a statement that can, text from its bytes in place).
    func bind(fields: [InsertField]) throws
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
    /// Makes the statement ready to run again, its bindings kept or not (for a caller that binds
    /// every parameter anew on each run: it saves clearing them).
    func resetKeepingBindings()
    /// Binds `values` to the parameters in order, steps to the end (rows discarded) and makes the
    /// statement ready to run again, its bindings kept or not: one run of an insert or of a
    /// prepared statement's `execute`, in one call that a backend implements on its own type.
    /// The values are read where they are: a caller's array literal stays in the caller's frame.
    func runToEnd(binding values: UnsafeBufferPointer<Value>) throws
    /// `runToEnd(binding:)` of `fields` (text from its bytes in place where the statement can).
    func runToEnd(binding fields: [InsertField]) throws

    /// The SQL text.
    var sql: String { get }
    /// True when running the statement cannot change the database.
    var isReadOnly: Bool { get }
    /// The result's column names.
    var columns: ColumnNames { get }
    /// Binds each `$name` (`:name`, `@name`) parameter to `values[name]`.
    func bind(named values: [String: Value]) throws
    /// Column `index` of the current row as an integer (0 for NULL or text that is no number).
    func int64(at index: Int32) -> Int64
    /// The current row.
    func row() -> Row
    /// Steps through every remaining row and returns them.
    func rows() throws -> [Row]
    /// Steps through every remaining row, handing each to `body`.
    func forEachRow(_ body: (Row) throws -> Void) throws
}

// What a server's statement does with nothing but `step` and `value(at:)`; SQLite's statement
// has faster forms of its own (rows sharing one storage, values read in place).
extension DatabaseStatement {
    /// The fields as values.
    public func bind(fields: [InsertField]) throws { try bind(fields.map(\.value)) }

    /// Clears the bindings too: a statement that can keep them says so (`ColumnReadingStatement`).
    public func resetKeepingBindings() { reset() }

    /// The values as an array.
    public func bind(_ values: UnsafeBufferPointer<Value>) throws { try bind(Array(values)) }

    /// `bind`, `step` to the end and `resetKeepingBindings`.
    public func runToEnd(binding values: UnsafeBufferPointer<Value>) throws {
        defer { resetKeepingBindings() }
        try bind(values)
        while try step() {}
    }

    /// `runToEnd(binding:)` of an array's values.
    public func runToEnd(binding values: [Value]) throws {
        try values.withUnsafeBufferPointer { try runToEnd(binding: $0) }
    }

    /// `bind(fields:)`, `step` to the end and `resetKeepingBindings`.
    public func runToEnd(binding fields: [InsertField]) throws {
        defer { resetKeepingBindings() }
        try bind(fields: fields)
        while try step() {}
    }

    /// The result's column names (asked of the statement each time).
    public var columns: ColumnNames { ColumnNames((0..<columnCount).map(columnName)) }

    /// Only SQLite names its parameters: a server's are numbered (`$1`). SQL that names one of
    /// `values` (`$name`) is refused; other SQL runs without parameters (a `$tag$` quote stays).
    public func bind(named values: [String: Value]) throws {
        for name in values.keys where sql.contains("$" + name) && !sql.contains("$" + name + "$") {
            throw PortalError(.misuse, "named SQL parameters ($\(name)) are SQLite's: on this database write $1, $2, …")
        }
        try bind([])
    }

    /// The column converted to an integer as SQLite would (0 for NULL, blobs and other text).
    public func int64(at index: Int32) -> Int64 {
        switch value(at: index) {
        case .integer(let n): n
        case .real(let r): Int64(exactly: r.rounded(.towardZero)) ?? 0
        case .decimal(let d): Int64(exactly: d.double.rounded(.towardZero)) ?? 0
        case .text(let t): Int64(t.trimmingWhitespace()) ?? 0
        case .null, .blob: 0
        }
    }

    /// The current row's values.
    public func row() -> Row { Row(columns: columns, values: (0..<columnCount).map { value(at: Int32($0)) }) }

    /// Every remaining row, each with its own values.
    public func rows() throws -> [Row] {
        var rows: [Row] = []
        try forEachRow { rows.append($0) }
        return rows
    }

    /// Every remaining row, one at a time.
    public func forEachRow(_ body: (Row) throws -> Void) throws {
        var names: ColumnNames?
        while try step() {
            let columns = names ?? self.columns
            names = columns
            try body(Row(columns: columns, values: (0..<columns.names.count).map { value(at: Int32($0)) }))
        }
    }
}
