/// A write transaction opened by `Store.beginTransaction()`, as a handle: any thread or task
/// may run reads and writes on it (one call at a time; the calls see its uncommitted changes)
/// until `commit()` or `rollback()`. Writes on it are savepoints: a failed one undoes only itself.
public final class Transaction: @unchecked Sendable {
    private let store: Store

    init(store: Store) { self.store = store }

    /// True until the transaction is committed or rolled back.
    public var isOpen: Bool { store.openTransaction === self }

    /// Runs `body` inside the transaction, on the writer: it sees the transaction's changes.
    @discardableResult
    public func read<T>(_ body: (ReadContext) throws -> T) throws -> T {
        try store.onTransaction(self) { writer in
            try store.run(ReadContext(store: store, connection: writer), body)
        }
    }

    /// Runs `body` inside the transaction as one savepoint: a thrown error undoes what `body`
    /// did and leaves the transaction open.
    @discardableResult
    public func write<T>(_ body: (WriteContext) throws -> T) throws -> T {
        try store.onTransaction(self) { writer in
            try store.run(WriteContext(store: store, connection: writer)) { context in
                try store.savepoint(on: writer) { try body(context) }
            }
        }
    }

    /// Commits. When the commit fails (a deferred constraint, a busy lock) the transaction stays
    /// open: fix it and commit again, or roll back.
    public func commit() throws { try store.end(self, commit: true) }

    /// Rolls back everything done in the transaction and ends it.
    public func rollback() throws { try store.end(self, commit: false) }
}
