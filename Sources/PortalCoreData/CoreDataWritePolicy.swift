import PortalEngine

/// A Core Data store's writes, as Core Data's own save makes them: a new row takes the root
/// entity's `Z_MAX` + 1 as `Z_PK` (raising `Z_MAX`), its `Z_ENT` and `Z_OPT` = 1; an update raises
/// `Z_OPT`; relationships are written wherever the store keeps them (`CoreDataLinks`); deletes
/// follow the model's delete rules (`CoreDataDeletes`). What cannot be kept faithfully is refused
/// with the reason, and the transaction writes nothing.
struct CoreDataWritePolicy: WritePolicy {
    /// A new row's `Z_PK` comes from `Z_MAX`, and every write keeps `Z_OPT` and the inverse
    /// sides of relationships.
    var keepsBookkeeping: Bool { true }

    /// Dates are seconds since 2001, as Core Data keeps them.
    var dateForm: DateForm? { .secondsSinceReferenceDate }

    /// Inserts by columns and upserts would leave `Z_PK`, `Z_MAX`, `Z_OPT` and the relationships behind.
    func refuse(_ write: RestrictedWrite, of entity: String) throws {
        let name = switch write {
        case .insertByColumns: "inserting rows by columns"
        case .upsert: "upsert"
        }
        throw coreDataRefusal(entity, "\(name) on a Core Data store is not supported (only create, update and delete keep "
                              + "Z_PK, Z_MAX, Z_OPT and the relationships)")
    }

    /// The `Z_PK` of a Core Data entity's row: its type is identified by the rowid (as
    /// `generate swift` writes it), which is `Z_PK`.
    func rowKey(of entity: String, idAttributes: [String], id: [Value]) throws -> Int64? {
        guard idAttributes == ["rowid"], id.count == 1, case .integer(let key) = id[0] else {
            throw PortalError(.conversion, "a type of \(entity) on a Core Data store needs an integer rowid (the row's Z_PK) as its only id",
                              entity: entity, attribute: idAttributes.first)
        }
        return key
    }

    func insert(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], returning: Returning, in context: WriteContext) throws -> WriteResult {
        guard let plan = try context.coreDataPlan(for: entity.name, creating: true),
              let model = try context.coreDataStoreModel() else {
            return try PlainWritePolicy().insert(entity, values, links: links, returning: returning, in: context)
        }
        let bookkeeping = ["Z_PK", "Z_ENT", "Z_OPT"]
        if let reserved = values.first(where: { bookkeeping.contains(entity.column(for: $0.column).uppercased()) }) {
            throw context.refusal(entity.name, "\(reserved.column) is Core Data's own bookkeeping")
        }
        let key = try context.allocateKey(plan)
        let insert = Insert(entity, columns: bookkeeping + values.map(\.column),
                            values: [.bound(.integer(key)), .bound(.integer(Int64(plan.number))), .bound(.integer(1))] + values.map(\.value),
                            returning: returning).rendered(in: context.store.dialect)
        let row = try context.runWrite(entity.name, insert.sql, insert.bindings, returning: !returning.isNothing)
        for link in links {
            try context.linkCoreData(model, entity.name, keys: [key], link.name, to: link.ids, marksRow: false)
        }
        return WriteResult(matched: 1, rows: context.asStored(row, of: entity), insertedRowid: key)
    }

    /// The update of the matched rows, their `Z_OPT` raised.
    func updateStatement(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                         where condition: SQLFragment?, dialect: any SQLDialect) -> SQLFragment {
        Update(entity, set: values + [WriteContext.coreDataVersionBump], where: condition).rendered(in: dialect)
    }

    func update(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult {
        guard try context.coreDataPlan(for: entity.name, creating: false, columns: values.map { entity.column(for: $0.column) }) != nil,
              let model = try context.coreDataStoreModel() else {
            return try PlainWritePolicy().update(entity, values, links: links, where: condition, in: context)
        }
        // The rows' ids first: the new values may change which rows the condition matches.
        let keys = links.isEmpty ? [] : try context.coreDataKeys(entity.name, where: condition)
        let update = updateStatement(entity, values, where: condition, dialect: context.store.dialect)
        try context.runWrite(entity.name, update.sql, update.bindings, returning: false)
        let matched = context.connection.changes
        for link in links {
            try context.linkCoreData(model, entity.name, keys: keys, link.name, to: link.ids, marksRow: false)
        }
        return WriteResult(matched: matched)
    }

    /// Puts back what a delete removed and changed, refused before anything is written where a
    /// row put back would fire a trigger calling Core Data's own functions.
    func restore(_ deleted: DeletedRows, in context: WriteContext) throws {
        if let model = try context.coreDataStoreModel() {
            for change in deleted.changes {
                switch change {
                case .removed(let table, _, let entity, _, _):
                    try model.refuseTriggers(on: table, writing: entity, .insert)
                case .changed(let table, _, let entity, _, _, let columns, _):
                    try model.refuseTriggers(on: table, writing: entity, updatedColumns(columns))
                }
            }
        }
        try context.restoreRows(deleted)
    }

    func delete(_ entity: EntityDescription, where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult {
        guard let matched = try context.coreDataDelete(entity.name, where: condition) else {
            return try PlainWritePolicy().delete(entity, where: condition, in: context)
        }
        return WriteResult(matched: matched)
    }
}
