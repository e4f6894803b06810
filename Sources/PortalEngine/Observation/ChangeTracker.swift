import Foundation

/// What one committed transaction touched: entity names (lowercased), or "anything" when raw SQL
/// ran (DDL, WITHOUT ROWID tables and views escape SQLite's update hook).
struct Changes: Sendable {
    var entities: Set<String> = []
    var unknown = false
    var isEmpty: Bool { entities.isEmpty && !unknown }

    func touches(_ entity: String) -> Bool { unknown || entities.contains(entity.lowercased()) }
}

/// Records, on the writer, which tables the transaction in progress changed, through
/// the connection's row-change reports (SQLite's update hook) and rollbacks, which forget them.
/// Only used under the writer's gate. A `LocalDatabaseConnection` reports to it (`observeChanges`).
public final class ChangeTracker: @unchecked Sendable {
    @exclusivity(unchecked) private var pending = Changes()
    /// The table-name pointer the hook saw last: SQLite passes its own stable string, so most
    /// rows of a bulk write cost a pointer comparison rather than a String.
    @usableFromInline @exclusivity(unchecked) var lastTableName: UnsafePointer<CChar>?

    init() {}

    /// A row of `table` changed. Called for every row written: it must be cheap. The name is the
    /// database's own string, the same pointer for every row of a table while it is unchanged.
    /// Inlinable: the comparison is made in the backend's hook itself, without a call.
    @inlinable @inline(__always)
    public func rowChanged(inTable table: UnsafePointer<CChar>) {
        if table != lastTableName { noteTable(table) }
    }

    /// A table other than the last one changed.
    @usableFromInline
    func noteTable(_ table: UnsafePointer<CChar>) {
        lastTableName = table
        pending.entities.insert(String(cString: table).lowercased())
    }

    @exclusivity(unchecked) private var lastNoted: String?

    func note(entity: String) {
        if entity == lastNoted { return }
        lastNoted = entity
        pending.entities.insert(entity.lowercased())
    }
    func noteUnknown() { pending.unknown = true }

    func begin() { discard() }

    /// The transaction rolled back: what it changed did not happen.
    public func transactionRolledBack() { discard() }

    func discard() {
        pending = Changes()
        lastTableName = nil
        lastNoted = nil
    }

    /// The changes of the transaction that just committed; starts afresh.
    func take() -> Changes {
        let taken = pending
        discard()
        return taken
    }
}
