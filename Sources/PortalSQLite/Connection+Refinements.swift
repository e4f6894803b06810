import CSQLite
import Foundation
import PortalEngine

// SQLite's connection and statement offer every refinement the engine asks for.

extension Connection: LocalDatabaseConnection {
    /// Through `sqlite3_update_hook` and `sqlite3_rollback_hook`, which the writer alone installs.
    public func observeChanges(_ tracker: ChangeTracker) {
        changeTracker = tracker
        // The connection keeps the tracker (`changeTracker`) while its hooks may be called.
        let context = Unmanaged.passUnretained(tracker).toOpaque()
        sqlite3_update_hook(handle, { context, _, _, table, _ in
            guard let context, let table else { return }
            // Called for every row written: a direct call on the tracker, without a retain and
            // release of it.
            Unmanaged<ChangeTracker>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.rowChanged(inTable: table) }
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<ChangeTracker>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.transactionRolledBack() }
        }, context)
    }

    /// A close-time checkpoint is best-effort: `PASSIVE` copies what no other connection's read
    /// or write holds back and never waits (a `TRUNCATE` would wait the whole busy timeout behind
    /// another process's read). When this is the file's last connection, closing it checkpoints
    /// the rest and removes the WAL; otherwise the next one to close does.
    public func checkpointWithoutWaiting() {
        try? execute("PRAGMA wal_checkpoint(PASSIVE)")
    }
}

extension Statement: ColumnReadingStatement {
    /// `sqlite3_column_type`.
    public func storedType(at index: Int32) -> StoredType {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// `sqlite3_column_value`, `sqlite3_value_type`, `sqlite3_value_int64`.
    public var inPlaceColumns: InPlaceColumns {
        InPlaceColumns(handle: handle, columnValue: sqlite3_column_value, valueType: sqlite3_value_type,
                       valueInteger: sqlite3_value_int64, integerType: SQLITE_INTEGER)
    }

    /// `sqlite3_column_double`.
    public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// `sqlite3_column_bytes` first: SQLite's documented order for text (the count is then of
    /// the text, not of a conversion to come).
    public func textBytes(at index: Int32) -> UnsafeBufferPointer<UInt8> {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let pointer = sqlite3_column_text(handle, index) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: count)
    }

    /// `sqlite3_reset` alone.
    public func resetKeepingBindings() { sqlite3_reset(handle) }

    /// `sqlite3_clear_bindings`.
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    /// `sqlite3_stmt_busy`.
    public var isRunning: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// `sqlite3_bind_parameter_count`.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// `sqlite3_sql` is the text of the statement prepared.
    public var preparedLength: Int { sqlite3_sql(handle).map { strlen($0) } ?? sql.utf8.count }

    /// Asked of the connection through the statement's handle (no context in between).
    public var connectionChanges: Int { Int(sqlite3_changes64(sqlite3_db_handle(handle))) }

    /// `sqlite3_stmt_busy`, then `runToEnd(binding:)` and `connectionChanges`.
    public func runToEndUnlessRunning(binding values: UnsafeBufferPointer<Value>) throws -> Int? {
        guard sqlite3_stmt_busy(handle) == 0 else { return nil }
        try runToEnd(binding: values)
        return connectionChanges
    }
}
