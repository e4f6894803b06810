import CSQLite
import PortalEngine

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe: the store hands each connection to one thread at a time (the writer behind
/// its lock, readers through the pool). `interrupt()` alone may be called from any thread.
public final class Connection {
    /// The SQLite handle (`sqlite3 *` for a connection, `sqlite3_stmt *` for a statement).
    public let handle: OpaquePointer
    /// The database file (or `:memory:`).
    public let path: String
    /// True when the connection was opened with `SQLITE_OPEN_READONLY`.
    public let isReadOnly: Bool
    private var cache: [String: Statement] = [:]
    private var isClosed = false
    /// Waits for other connections' locks; `interrupt()` ends a wait.
    let lockWait: LockWait
    /// Hears of the rows writes change (`observeChanges`), held while the connection is open:
    /// SQLite's hooks are handed it unretained.
    var changeTracker: ChangeTracker?

    /// Opens `path` (`":memory:"` for a private in-memory database). A wait for another
    /// connection's lock ends with `.interrupted` once `interruptRequested` returns true.
    public init(path: String, readOnly: Bool, create: Bool, busyTimeout: Int32 = 5000,
                interruptRequested: (@Sendable () -> Bool)? = nil) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            var error = PortalError.sqlite(rc, db: db)
            error.path = path
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        self.isReadOnly = readOnly
        lockWait = LockWait(timeoutMilliseconds: busyTimeout, interruptRequested: interruptRequested)
        sqlite3_extended_result_codes(db, 1)
        lockWait.install(on: db)
    }

    deinit { close() }

    /// Finalizes the cached statements and closes the connection (idempotent).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs `body` with a progress handler that stops the running statement (`.interrupted`)
    /// once `stop` says so, asked every few hundred of SQLite's instructions: for a stop that
    /// may come at any moment, also just before a statement starts, when `sqlite3_interrupt`
    /// would be lost. Not nested: an inner call replaces the outer one's handler until it returns.
    public func stopping<T>(when stop: @escaping @Sendable () -> Bool, _ body: () throws -> T) rethrows -> T {
        let condition = Unmanaged.passRetained(StopCondition(stop))
        sqlite3_progress_handler(handle, 256, { context in
            guard let context else { return 0 }
            return Unmanaged<StopCondition>.fromOpaque(context).takeUnretainedValue().stop() ? 1 : 0
        }, condition.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            condition.release()
        }
        return try body()
    }

    /// A prepared statement for `sql`, from the cache when it was prepared before; reset and
    /// with its bindings cleared.
    public func prepare(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            // Reset only: every cached statement is re-bound in full before it runs.
            sqlite3_reset(statement.handle)
            return statement
        }
        let statement = try prepareUncached(sql)
        cache[sql] = statement
        return statement
    }

    /// A statement for one-off SQL (user-typed text), not kept in the cache.
    public func prepareUncached(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, 0, &stmt, nil)
        guard rc == SQLITE_OK else { throw PortalError.sqlite(rc, db: handle, sql: sql) }
        guard let stmt else { throw PortalError(.misuse, "no SQL statement in: \(sql)") }
        return Statement(stmt, connection: self, sql: sql)
    }

    /// Prepares each statement of `sql` in turn (uncached) and hands it to `body`.
    public func forEachStatement(_ sql: String, _ body: (any DatabaseStatement) throws -> Void) throws {
        var utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = UnsafePointer(base)
            while cursor.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(handle, cursor, -1, 0, &stmt, &tail)
                let text = String(cString: cursor)
                guard rc == SQLITE_OK else { throw PortalError.sqlite(rc, db: handle, sql: text) }
                guard let tail, tail > cursor else { return }
                if let stmt {
                    let length = tail - cursor
                    let statementText = String(decoding: UnsafeRawBufferPointer(start: cursor, count: length), as: UTF8.self)
                    try body(Statement(stmt, connection: self, sql: statementText))
                }
                cursor = tail
            }
        }
    }

    /// Runs one or more SQL statements separated by semicolons, discarding any rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        sqlite3_free(errorMessage)
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
    }

    /// The rowid of the row the last successful INSERT on this connection inserted.
    public var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }
    /// How many rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// How many rows every write since the connection opened changed.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Makes the statement running on this connection stop with `.interrupted`, also while it
    /// waits for another connection's lock. Thread-safe.
    public func interrupt() {
        lockWait.interrupt()
        sqlite3_interrupt(handle)
    }

    /// The error for result code `rc`: `.interrupted` when an interrupt ended a wait for a lock.
    func error(_ rc: Int32, sql: String?) -> PortalError {
        if rc & 0xFF == SQLITE_BUSY, lockWait.takeInterruption() {
            return PortalError(.interrupted, "interrupted while waiting for another connection's lock")
        }
        return PortalError.sqlite(rc, db: handle, sql: sql)
    }
}

/// A NUL byte for binding empty text (SQLite needs a non-null pointer for '' rather than NULL).
nonisolated(unsafe) let emptyCString: UnsafePointer<CChar> = {
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
}()

/// A prepared statement: bind values, step, read columns by index.
public final class Statement {
    /// The SQLite handle (`sqlite3 *` for a connection, `sqlite3_stmt *` for a statement).
    public let handle: OpaquePointer
    /// The statement's SQL text.
    public let sql: String
    unowned let connection: Connection
    /// Column names, shared by every row this statement produces.
    @exclusivity(unchecked) private var cachedColumns: ColumnNames?

    /// True when running the statement cannot change the database: SQLite says it does not
    /// write, or it is an `EXPLAIN` (of a write too: `explain update …` runs nothing).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 || sqlite3_stmt_isexplain(handle) != 0 }

    init(_ handle: OpaquePointer, connection: Connection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement so it can run again, and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to the parameters `?1`, `?2`, … in order.
    public func bind(_ values: [Value]) throws {
        try values.withUnsafeBufferPointer { try bind($0) }
    }

    /// Binds the values in `values` to the parameters `?1`, `?2`, … in order.
    @inline(__always)
    public func bind(_ values: UnsafeBufferPointer<Value>) throws {
        // Read once: the handle stays in a register across the loop's C calls.
        let handle = self.handle
        // Values read in place (not copied out and destroyed again), the parameter's number
        // counted beside them, and nothing of `self` needed but on an error: a loop of a few
        // instructions and one C call per value.
        guard var value = values.baseAddress else { return }
        let end = value + values.count
        var parameter: Int32 = 1
        while value < end {
            let rc: Int32
            if case .integer(let integer) = value.pointee {
                // The common case, bound right here.
                rc = sqlite3_bind_int64(handle, parameter, integer)
            } else {
                rc = Statement.bind(value, to: handle, at: parameter)
            }
            guard rc == SQLITE_OK else { throw bindError(rc) }
            value += 1
            parameter &+= 1
        }
    }

    /// Binds each parameter by its name: `$n`, `:n` and `@n` all take `values["n"]`. A
    /// parameter without a value, or without a name (`?`), is an error naming it: SQLite would
    /// run it as NULL and the mistake would go unseen.
    public func bind(named values: [String: Value]) throws {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return }
        for index in 1...count {
            guard let cName = sqlite3_bind_parameter_name(handle, index) else {
                throw PortalError(.misuse, "the SQL parameter ? (number \(index)) has no name to take a value from: write $name")
            }
            let name = String(cString: cName)
            let key = name.first == "?" ? name : String(name.dropFirst())
            guard let value = values[key] else { throw PortalError(.misuse, "no value for the SQL parameter \(name)") }
            try bind(value, at: index)
        }
    }

    /// Binds `value` to the 1-based parameter `index`.
    public func bind(_ value: Value, at index: Int32) throws {
        let rc = withUnsafePointer(to: value) { Statement.bind($0, to: handle, at: index) }
        guard rc == SQLITE_OK else { throw bindError(rc) }
    }

    /// The error of a failed bind, made out of the binding loops' way.
    @inline(never)
    func bindError(_ rc: Int32) -> PortalError {
        PortalError.sqlite(rc, db: connection.handle, sql: sql)
    }

    /// Binds the value at `value` to the 1-based parameter `index` of the statement `handle`;
    /// SQLite's result code. Never inlined: in the binding loop, its switch would replace the
    /// loop's one test for an integer.
    @inline(never)
    private static func bind(_ value: UnsafePointer<Value>, to handle: OpaquePointer, at index: Int32) -> Int32 {
        let rc: Int32
        switch value.pointee {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        // SQLite has no decimal: it stores the nearest double, as it reads the same literal.
        case .decimal(let d): rc = sqlite3_bind_double(handle, index, d.double)
        case .text(let s):
            var s = s
            rc = s.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text64(handle, index, chars.baseAddress ?? emptyCString,
                                        sqlite3_uint64(chars.count), portal_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                    sqlite3_uint64(buffer.count), portal_sqlite_transient())
            }
        }
        return rc
    }

    /// Advances to the next row: true when there is one, false when done.
    @inline(__always)
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = connection.error(rc, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// How many columns each row of the result has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of column `index` (0-based) of the result.
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// The result's column names, computed once per statement.
    public var columns: ColumnNames {
        // A schema change re-prepares the statement: `SELECT *` or `RETURNING *` may then have
        // other columns than the names kept.
        if let cachedColumns, cachedColumns.names.count == columnCount { return cachedColumns }
        let names = ColumnNames((0..<columnCount).map(columnName))
        cachedColumns = names
        return names
    }

    /// Column `index` of the current row as an integer (SQLite's conversion), without building a `Value`.
    @inline(__always)
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The value of column `index` of the current row.
    @inline(__always)
    public func value(at index: Int32) -> Value { Statement.value(of: handle, at: index) }

    /// The column `index` of the row `handle` (a prepared statement) stands on, as a `Value`:
    /// the one place an SQLite column becomes one (the columnar `Row` keeps its bits instead).
    @inline(__always)
    public static func value(of handle: OpaquePointer, at index: Int32) -> Value {
        // One column lookup (sqlite3_column_value), then cheap reads of that value, rather
        // than a lookup per sqlite3_column_* call.
        guard let value = sqlite3_column_value(handle, index) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return .text("") }
            let count = Int(sqlite3_value_bytes(value))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// The current row as a `Row` sharing this statement's column names.
    public func row() -> Row {
        let storage = RowStorage(columns: columns, width: columnCount)
        // Out of memory: the values, through an array (which traps, as any Swift allocation would).
        guard storage.appendRow(of: handle) else {
            return Row(columns: columns, values: (0..<columnCount).map { value(at: Int32($0)) })
        }
        return Row(storage: storage, start: 0)
    }

    /// Steps through every remaining row and returns them, all sharing one storage (no
    /// allocation per row).
    public func rows() throws -> [Row] {
        // The columns are counted after the first step: a statement from the cache that a
        // schema change made stale is prepared again by it, and `SELECT *` may then have more.
        guard try step() else { return [] }
        let width = columnCount
        let storage = RowStorage(columns: columns, width: width)
        var count = 0
        repeat {
            guard storage.appendRow(of: handle) else { throw outOfMemory() }
            count += 1
        } while try step()
        // Written in place: `map` over the range checked the array's capacity for every row.
        return [Row](unsafeUninitializedCapacity: count) { rows, initialized in
            guard let first = rows.baseAddress else { return }
            for i in 0..<count { (first + i).initialize(to: Row(storage: storage, start: i * width)) }
            initialized = count
        }
    }

    /// Steps through every remaining row, handing each to `body`. A row `body` does not keep
    /// leaves its storage to the engine, which refills it for the next row (no allocation per row).
    public func forEachRow(_ body: (Row) throws -> Void) throws {
        // Counted after the first step, as in `rows()`.
        guard try step() else { return }
        let width = columnCount
        var storage = RowStorage(columns: columns, width: width)
        repeat {
            if isKnownUniquelyReferenced(&storage) {
                storage.removeAll()
            } else {
                storage = RowStorage(columns: columns, width: width)
            }
            guard storage.appendRow(of: handle) else { throw outOfMemory() }
            try body(Row(storage: storage, start: 0))
        } while try step()
    }

    private func outOfMemory() -> PortalError {
        PortalError.sqlite(SQLITE_NOMEM, db: nil, sql: sql)
    }
}

/// The question a progress handler asks (`Connection.stopping`).
private final class StopCondition {
    let stop: @Sendable () -> Bool
    init(_ stop: @escaping @Sendable () -> Bool) { self.stop = stop }
}
