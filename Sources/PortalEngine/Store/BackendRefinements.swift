// What a backend may offer beyond the connection and statement protocols: faster forms of
// what they do, and the work a file database does that a server does not. The engine asks for
// them as protocol refinements (`as? any ColumnReadingStatement`), never by a backend's type.

/// The type of the value a column of the current row holds.
public enum StoredType: Sendable {
    case null, integer, real, text, blob
}

/// A statement whose current row is read in place, without a `Value` per column where none is
/// needed (the typed decoder's and the exports' hot paths), and whose runs are controlled
/// without clearing its bindings each time (a loop of executions binds every parameter anew).
public protocol ColumnReadingStatement: DatabaseStatement {
    /// The type of the value column `index` of the current row holds (`.null` for no such column).
    func storedType(at index: Int32) -> StoredType
    /// The current row read through C functions on the statement's handle, for the hottest
    /// loops (the typed decoder reads every integer column through it).
    var inPlaceColumns: InPlaceColumns { get }
    /// Column `index` as a double (the database's own conversion).
    func double(at index: Int32) -> Double
    /// The text of column `index` as UTF-8 bytes (empty for NULL), valid until the statement
    /// steps, resets or is asked for the same column in another form.
    func textBytes(at index: Int32) -> UnsafeBufferPointer<UInt8>
    /// Clears every binding (parameters then read as NULL).
    func clearBindings()
    /// True between the first step of a run and its reset.
    var isRunning: Bool { get }
    /// How many parameters the statement has.
    var parameterCount: Int { get }
    /// How many UTF-8 bytes of its text the statement was prepared from: what follows is a
    /// second statement, which running this one would ignore.
    var preparedLength: Int { get }
    /// How many rows the last INSERT, UPDATE or DELETE of the statement's connection changed.
    var connectionChanges: Int { get }
    /// One run of a prepared statement's `execute`, in one call: nil when the statement is
    /// running (`isRunning`), and nothing was done; otherwise `runToEnd(binding:)`, then
    /// `connectionChanges`.
    func runToEndUnlessRunning(binding values: UnsafeBufferPointer<Value>) throws -> Int?
}

/// A statement's current row as a C library reads it in place: the statement's handle and the
/// library's functions that find a column's value, its type and its integer. Calls through
/// them cost what calls into the library cost anyway: no protocol witness and no reference
/// counted per column, where the typed decoder reads millions of columns.
public struct InPlaceColumns: @unchecked Sendable {
    /// The statement's handle.
    public let handle: OpaquePointer
    /// The value of column `index` of the current row (nil: none).
    public let columnValue: @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    /// The type code of a value.
    public let valueType: @convention(c) (OpaquePointer?) -> Int32
    /// The integer a value holds.
    public let valueInteger: @convention(c) (OpaquePointer?) -> Int64
    /// `valueType`'s code for an integer.
    public let integerType: Int32

    /// The columns of `handle`, read by these functions.
    public init(handle: OpaquePointer, columnValue: @escaping @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?,
                valueType: @escaping @convention(c) (OpaquePointer?) -> Int32,
                valueInteger: @escaping @convention(c) (OpaquePointer?) -> Int64, integerType: Int32) {
        self.handle = handle
        self.columnValue = columnValue
        self.valueType = valueType
        self.valueInteger = valueInteger
        self.integerType = integerType
    }

    /// The integer column `index` holds, nil when it holds anything else (or there is no such
    /// column): one lookup of the column, then its type and integer.
    @inlinable
    public func integer(at index: Int32) -> Int64? {
        guard let value = columnValue(handle, index), valueType(value) == integerType else { return nil }
        return valueInteger(value)
    }
}

/// A connection to a database file the engine manages itself (SQLite's): it reports the rows
/// each write touches, is checkpointed when the store closes, and is stopped by a condition
/// asked while its statements run.
public protocol LocalDatabaseConnection: DatabaseConnection {
    /// Tells `tracker` of every row a write changes and of every rollback, until the connection
    /// closes. The tracker is the engine's own class, not a protocol: the report of each row
    /// written is a direct call, with no reference counted and no witness looked up.
    func observeChanges(_ tracker: ChangeTracker)
    /// Copies what the write-ahead log holds into the database without waiting for anyone.
    func checkpointWithoutWaiting()
    /// Runs `body` while `stop` is asked every so often: once it says true, the running
    /// statement stops with `.interrupted` (also one that starts after the question came).
    func stopping<T>(when stop: @escaping @Sendable () -> Bool, _ body: () throws -> T) rethrows -> T
}
