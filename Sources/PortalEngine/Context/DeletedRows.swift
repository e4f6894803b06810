// A delete that can be undone: the write policy notes each row a delete removes, and each row
// its rules change besides, as stored, just before the statement that does it; `restore` puts
// them back, newest first. What the database does by itself (triggers, foreign-key actions) is
// the database's: it is not noted, and a restore does not undo it.

/// What a delete removed, and what the store's rules changed besides (a Core Data store's
/// cascades, nullified relationships, join rows, raised `Z_OPT`), every column as stored: handed
/// back by `WriteContext.deleteKeepingRows`, put back by `WriteContext.restore(_:)`.
public struct DeletedRows: Sendable {
    /// A row removed or changed, as it was.
    package enum Change: Sendable {
        /// A row of `table`, every column.
        case removed(table: String, namespace: String?, entity: String, columns: [String], values: [Value])
        /// The columns of the row of `table` whose `keyColumn` is `key`, before they changed.
        case changed(table: String, namespace: String?, entity: String, keyColumn: String, key: Value,
                     columns: [String], values: [Value])
    }

    /// The rows of the entity the delete matched.
    public var matched: Int
    /// Every row removed or changed, in the order it happened.
    package var changes: [Change]

    /// The number of rows the delete removed, those its rules reached included.
    public var removedRows: Int {
        changes.count { if case .removed = $0 { true } else { false } }
    }
}

extension WriteContext {
    /// Deletes like `delete(_:where:)` and hands back, every column as stored, the rows removed
    /// and (on a Core Data store) the rows its delete rules changed, so that `restore(_:)` can
    /// put them back in the same transaction or a later one.
    public func deleteKeepingRows(_ entity: String, where filter: RowFilter) throws -> DeletedRows {
        keptChanges = []
        defer { keptChanges = nil }
        let result = try delete(entity, where: filter)
        return DeletedRows(matched: result.matched, changes: keptChanges ?? [])
    }

    /// Puts back what a delete removed and changed (`deleteKeepingRows`), newest first: the same
    /// keys, and on a Core Data store the same `Z_PK`, `Z_ENT` and `Z_OPT` (`Z_MAX` stays as it
    /// is, above them), the relationships and join rows as they were. Fails, writing nothing
    /// (the transaction rolls back), when a row with the same key has been made since.
    public func restore(_ deleted: DeletedRows) throws {
        try checkValid()
        try store.writePolicy.restore(deleted, in: self)
    }

    /// Notes, when a delete keeps what it removes, the rows `delete` is about to remove: every
    /// column, or the `columns` given (those that can be written: a generated column is
    /// computed again when the row is put back), after the rowid when `rowid` (where the table
    /// has one that need not be among its columns).
    package func keepRows(before delete: Delete, of entity: String, columns: [String]? = nil, rowid: Bool = false) throws {
        guard keptChanges != nil else { return }
        let dialect = store.dialect
        let selected: Select.Columns = if let columns {
            .expressions((rowid ? dialect.rowidColumn.map { [$0] } ?? [] : []).map { SQLFragment(delete.alias + "." + $0 + " AS " + $0) }
                         + columns.map { SQLFragment(PortalEngine.column(delete.alias, $0, dialect) + " AS " + dialect.quoted($0)) })
        } else {
            .all(withRowid: rowid)
        }
        var select = Select(delete.table, alias: delete.alias, columns: selected, condition: delete.condition)
        select.namespace = delete.namespace
        select.ownRows = delete.ownRows
        for row in try rows(select) {
            keptChanges?.append(.removed(table: delete.table, namespace: delete.namespace, entity: entity,
                                         columns: row.names, values: row.values))
        }
    }

    /// Notes, when a delete keeps what it changes, the columns `update` is about to change, of
    /// each row it matches, found again by `keyColumn`.
    package func keepRows(before update: Update, of entity: String, keyColumn: String) throws {
        guard keptChanges != nil else { return }
        let dialect = store.dialect
        let columns = [keyColumn] + update.assignments.map(\.column)
        var select = Select(update.table, alias: update.alias,
                            columns: .expressions(columns.map { SQLFragment(PortalEngine.column(update.alias, $0, dialect)) }),
                            condition: update.condition)
        select.namespace = update.namespace
        select.ownRows = update.ownRows
        for row in try rows(select) {
            keptChanges?.append(.changed(table: update.table, namespace: update.namespace, entity: entity, keyColumn: keyColumn,
                                         key: row.values[0], columns: Array(columns.dropFirst()),
                                         values: Array(row.values.dropFirst())))
        }
    }

    private func rows(_ select: Select) throws -> [Row] {
        let rendered = select.rendered(in: store.dialect)
        let statement = try connection.prepare(rendered.sql)
        defer { statement.reset() }
        try statement.bind(rendered.bindings)
        return try statement.rows()
    }
}

extension WritePolicy {
    /// Puts the rows back as they were (`WriteContext.restoreRows`).
    package func restore(_ deleted: DeletedRows, in context: WriteContext) throws {
        try context.restoreRows(deleted)
    }
}

extension WriteContext {
    /// Puts the rows back as they were, newest change first: a removed row inserted with every
    /// column, a changed row's columns set back.
    package func restoreRows(_ deleted: DeletedRows) throws {
        let dialect = store.dialect
        for change in deleted.changes.reversed() {
            switch change {
            case .removed(let table, let namespace, let entity, let columns, let values):
                var insert = Insert(table, columns: columns, values: values.map(SQLFragment.bound))
                insert.namespace = namespace
                let rendered = insert.rendered(in: dialect)
                try runWrite(entity, rendered.sql, rendered.bindings, returning: false)
            case .changed(let table, let namespace, let entity, let keyColumn, let key, let columns, let values):
                var update = Update(table, set: zip(columns, values).map { (column: $0, value: SQLFragment.bound($1)) },
                                    where: dialect.quoted(keyColumn) + " = " + .bound(key))
                update.namespace = namespace
                let rendered = update.rendered(in: dialect)
                try runWrite(entity, rendered.sql, rendered.bindings, returning: false)
            }
        }
    }
}
