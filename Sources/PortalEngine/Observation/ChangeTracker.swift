import CSQLite
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
/// `sqlite3_update_hook` (and a rollback hook that forgets them). Only used under the writer's gate.
final class ChangeTracker: @unchecked Sendable {
    @exclusivity(unchecked) private var pending = Changes()
    /// The table-name pointer the hook saw last: SQLite passes its own stable string, so most
    /// rows of a bulk write cost a pointer comparison rather than a String.
    @exclusivity(unchecked) private var lastTableName: UnsafePointer<CChar>?

    func install(on connection: Connection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(connection.handle, { context, _, _, table, _ in
            guard let context, let table else { return }
            // Called for every row written: no retain and release of the tracker, which the
            // store holds for as long as the hook is installed.
            Unmanaged<ChangeTracker>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.noteTable(table) }
        }, context)
        sqlite3_rollback_hook(connection.handle, { context in
            guard let context else { return }
            Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().discard()
        }, context)
    }

    private func noteTable(_ table: UnsafePointer<CChar>) {
        if table == lastTableName { return }
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
