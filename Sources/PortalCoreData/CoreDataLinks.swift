import PortalPredicate
import PortalEngine

// Setting a relationship of a Core Data row writes wherever the store keeps it: the row's own
// key column (and the entity column beside it when the destination has sub-entities), the
// destination rows' key columns (a to-many kept by its inverse), or join-table rows (a
// many-to-many; `REFLEXIVE` pairs both ways round). Ordered relationships keep Core Data's
// order keys (`CoreDataOrderKeys`) in the order given, and a row added to the other side's
// ordered set goes last there.

extension WriteContext {
    /// The ids (`Z_PK`) of the rows of `entity` that `condition` (over `alias`) matches.
    func coreDataKeys(_ entity: String, where condition: SQLFragment?, alias: String = "t0") throws -> [Int64] {
        let described = try self.entity(named: entity)
        return try coreDataRows(described.table, Select(described, alias: alias, columns: rowColumns(alias), condition: condition))
            .map(\.key)
    }

    func linkCoreData(_ model: CoreDataStoreModel, _ entity: String, keys: [Int64], _ name: String, to targets: [Int64],
                      marksRow: Bool) throws {
        try checkValid()
        let entityName = try self.entity(named: entity).name
        guard let mapped = model.mapping.entity(named: entityName) else {
            throw refusal(entityName, "it is not an entity of the store's model")
        }
        guard let relationship = mapped.relationships.first(where: { $0.name == name }),
              let destination = model.mapping.entity(named: relationship.destination) else {
            throw PortalError(.unknownAttribute, "\(entityName) has no relationship named '\(name)'", entity: entityName,
                              attribute: name, suggestion: closestName(to: name, among: mapped.relationships.map(\.name)))
        }
        // The row's own table: its key column where it keeps the relationship, and its Z_OPT.
        let ownColumns: [String?] = if case .foreignKey(let column, let entityColumn) = relationship.storage {
            [column, entityColumn, model.inverse(of: relationship).flatMap(Self.orderColumn)]
        } else { [] }
        try model.refuseTriggers(on: mapped.table, writing: entityName, updatedColumns(ownColumns))
        var rows: [CoreDataRow] = []
        for target in targets where !rows.contains(where: { $0.key == target }) {
            guard let number = try rowNumber(target, in: destination.table), destination.numbers.contains(number) else {
                throw PortalError(.rowNotFound, "\(entityName).\(name): there is no \(destination.name) with id \(target)",
                                  entity: entityName, attribute: name)
            }
            rows.append(CoreDataRow(table: destination.table, key: target, number: number))
        }
        if !relationship.isToMany, rows.count > 1 {
            throw PortalError(.misuse, "\(entityName).\(name) is a to-one relationship: give one id or nil", entity: entityName,
                              attribute: name)
        }
        // A row that holds the key of the one it belongs to belongs to one only: given to several
        // rows at once, it would end up with the last of them.
        if keys.count > 1, !rows.isEmpty, Self.isExclusive(relationship, model) {
            throw PortalError(.misuse, "\(entityName).\(name): each \(destination.name) belongs to one \(entityName) only; "
                              + "set it on one \(entityName) at a time", entity: entityName, attribute: name)
        }
        for key in keys {
            guard let own = try rowNumber(key, in: mapped.table), mapped.numbers.contains(own) else {
                throw PortalError(.rowNotFound, "there is no \(entityName) with id \(key)", entity: entityName)
            }
            let row = CoreDataRow(table: mapped.table, key: key, number: own)
            switch relationship.storage {
            case .foreignKey(let column, let entityColumn):
                try linkByOwnColumn(row, relationship, column: column, entityColumn: entityColumn, to: rows.first, model)
            case .inverseForeignKey(let column, let orderColumn):
                try linkByTheirColumn(row, relationship, destination, column: column, orderColumn: orderColumn, to: rows, model)
            case .joinTable(let table, let source, let target, let orderColumn):
                try model.refuseTriggers(on: table, writing: entityName, .insert)
                try model.refuseTriggers(on: table, writing: entityName, .delete)
                try linkByJoinRows(row, relationship, table: table, source: source, target: target, orderColumn: orderColumn,
                                   to: rows, model)
            }
            if marksRow { try markChanged(row.table, entityName, key: row.key) }
        }
    }

    /// True when a target can be linked to one row only: a to-many kept by the targets' own key
    /// column, or a one-to-one.
    private static func isExclusive(_ relationship: CoreDataMapping.Relationship, _ model: CoreDataStoreModel) -> Bool {
        switch relationship.storage {
        case .inverseForeignKey: return true
        case .foreignKey: return model.inverse(of: relationship).map { !$0.isToMany } ?? false
        case .joinTable: return false
        }
    }

    /// A to-one kept in the row's own column: the key, the entity beside it, and, when the
    /// inverse is a to-one, the row that held the target before lets go of it.
    private func linkByOwnColumn(_ row: CoreDataRow, _ relationship: CoreDataMapping.Relationship, column: String,
                                 entityColumn: String?, to target: CoreDataRow?, _ model: CoreDataStoreModel) throws {
        let inverse = model.inverse(of: relationship)
        let before = try ownColumn(column, of: row)
        if let target, let inverse, !inverse.isToMany {
            let cleared = [column, entityColumn].compactMap { $0 }.map { (column: $0, value: SQLFragment("NULL")) }
            try run(Update(row.table, set: cleared + [Self.coreDataVersionBump],
                           where: equals(column, target.key) + " AND Z_PK != " + .bound(.integer(row.key))),
                    relationship.declaredBy)
        }
        var sets: [(column: String, value: SQLFragment)] = [(column, .bound(target.map { .integer($0.key) } ?? .null))]
        if let entityColumn { sets.append((entityColumn, .bound(target.map { .integer(Int64($0.number)) } ?? .null))) }
        // The inverse is an ordered to-many: the row goes last in its new owner's set, and
        // keeps its place when the owner does not change.
        if case .inverseForeignKey(_, let order?)? = inverse?.storage, before != target?.key || target == nil {
            sets.append((order, .bound(try target.map { .integer(try appendedKey(row.table, order, where: column, is: $0.key,
                                                                                  relationship.declaredBy)) } ?? .null)))
        }
        try run(Update(row.table, set: sets, where: keyIs(row.key)), relationship.declaredBy)
        try keepOtherSide(of: row, relationship, inverse, before: before, after: target?.key, model)
    }

    /// Core Data saves both ends of a changed relationship: a one-to-one kept in a column on
    /// each side points back from the new partner and no longer from the old one; otherwise the
    /// old and the new partner, whose to-many changed, are marked changed (`Z_OPT`).
    private func keepOtherSide(of row: CoreDataRow, _ relationship: CoreDataMapping.Relationship,
                               _ inverse: CoreDataMapping.Relationship?, before: Int64?, after: Int64?,
                               _ model: CoreDataStoreModel) throws {
        guard let inverse, let destination = model.mapping.entity(named: relationship.destination) else { return }
        guard !inverse.isToMany, case .foreignKey(let back, let backEntity) = inverse.storage else {
            let changed = [before, after].compactMap { $0 }
            if before != after, !changed.isEmpty { try markChanged(destination, keys: changed) }
            return
        }
        try model.refuseTriggers(on: destination.table, writing: destination.name, updatedColumns([back, backEntity]))
        var cleared: [(column: String, value: SQLFragment)] = [(back, SQLFragment("NULL"))]
        if let backEntity { cleared.append((backEntity, SQLFragment("NULL"))) }
        var condition = equals(back, row.key)
        if let after { condition = condition + " AND Z_PK != " + .bound(.integer(after)) }
        try run(Update(destination.table, set: cleared + [Self.coreDataVersionBump], where: condition), destination.name)
        guard let after else { return }
        var pointing: [(column: String, value: SQLFragment)] = [(back, .bound(.integer(row.key)))]
        if let backEntity { pointing.append((backEntity, .bound(.integer(Int64(row.number))))) }
        try run(Update(destination.table, set: pointing + [Self.coreDataVersionBump],
                       where: keyIs(after)), destination.name)
    }

    /// The order column a relationship keeps in its destination rows (an ordered to-many kept by
    /// their key column), nil otherwise.
    static func orderColumn(_ relationship: CoreDataMapping.Relationship) -> String? {
        if case .inverseForeignKey(_, let order?) = relationship.storage { order } else { nil }
    }

    /// The key a row's own to-one column holds, nil when it holds none.
    private func ownColumn(_ column: String, of row: CoreDataRow) throws -> Int64? {
        let select = Select(row.table, columns: .expressions([SQLFragment(store.dialect.quoted(column))]),
                            condition: keyIs(row.key)).rendered(in: store.dialect)
        if case .integer(let key)? = try connection.scalar(select.sql, select.bindings) { return key }
        return nil
    }

    /// The order key of a row added at the end of an ordered set: the rows of `table` whose
    /// `column` is `key`, ordered by `order`. Refused when a damaged set's last key leaves no room.
    private func appendedKey(_ table: String, _ order: String, where column: String, is key: Int64,
                             _ entity: String) throws -> Int64 {
        let last = try keys(Select(table, columns: .expressions([SQLFragment("max(" + store.dialect.quoted(order) + ")")]),
                                   condition: equals(column, key))).first
        guard let appended = CoreDataOrderKeys.appended(after: last) else {
            throw refusal(entity, "the ordered set kept in \(table).\(order) has no room after its last key; "
                          + "set the whole set to number it afresh")
        }
        return appended
    }

    /// The rows `column` links to `key` (`Z_PK`, or `target` in a join table) with their order
    /// keys: an ordered set as the store holds it.
    private func orderKeys(_ table: String, member: String, order: String, where column: String, is key: Int64) throws
        -> [Int64: Int64] {
        let select = Select(table, columns: .expressions([SQLFragment(store.dialect.quoted(member)),
                                                          SQLFragment(store.dialect.quoted(order))]),
                            condition: equals(column, key)).rendered(in: store.dialect)
        let statement = try connection.prepare(select.sql)
        defer { statement.reset() }
        try statement.bind(select.bindings)
        var result: [Int64: Int64] = [:]
        for found in try statement.rows() {
            if case .integer(let member) = found.value(at: 0), case .integer(let order) = found.value(at: 1) { result[member] = order }
        }
        return result
    }

    /// Raises the `Z_OPT` of the rows of `entity` with these keys: rows on the other side of a
    /// changed relationship. Not in a table whose triggers call Core Data's own SQL functions
    /// (which only Core Data has): the relationship itself is kept elsewhere (a join table, this
    /// side's column), so the write goes on without that mark rather than being refused whole.
    func markChanged(_ entity: CoreDataMapping.Entity, keys: [Int64]) throws {
        guard let model = try coreDataStoreModel(), model.trigger(on: entity.table, firedBy: updatedColumns([])) == nil else { return }
        try run(Update(entity.table, set: [Self.coreDataVersionBump],
                       where: "Z_PK IN (" + SQLFragment.bound(keys.map { .integer($0) }) + ")"), entity.name)
    }

    /// A relationship kept in the destination rows' column (a to-many with a to-one inverse or
    /// none, or a one-to-one kept on the other side): rows left out let go, the rows given
    /// point here, in order.
    private func linkByTheirColumn(_ row: CoreDataRow, _ relationship: CoreDataMapping.Relationship,
                                   _ destination: CoreDataMapping.Entity, column: String, orderColumn: String?,
                                   to targets: [CoreDataRow], _ model: CoreDataStoreModel) throws {
        let entityColumn: String? = if case .foreignKey(_, let entityColumn)? = model.inverse(of: relationship)?.storage {
            entityColumn
        } else { nil }
        try model.refuseTriggers(on: destination.table, writing: destination.name, updatedColumns([column, entityColumn, orderColumn]))
        try markFormerOwners(of: targets, in: destination, column: column, except: row, relationship, model)
        let cleared = [column, entityColumn, orderColumn].compactMap { $0 }.map { (column: $0, value: SQLFragment("NULL")) }
        try run(Update(destination.table, set: cleared + [Self.coreDataVersionBump],
                       where: equals(column, row.key) + " AND Z_PK NOT IN (" + .bound(targets.map { .integer($0.key) }) + ")"),
                destination.name)
        // Rows that stay, at the same place, are not written: their side did not change.
        let members = try orderKeys(destination.table, member: "Z_PK", order: orderColumn ?? "Z_PK", where: column, is: row.key)
        let positions = orderColumn == nil ? [:] : CoreDataOrderKeys.keys(for: targets.map(\.key), current: members)
        for target in targets where members[target.key] == nil || (orderColumn != nil && positions[target.key] != members[target.key]) {
            var sets: [(column: String, value: SQLFragment)] = [(column, .bound(.integer(row.key)))]
            if let entityColumn { sets.append((entityColumn, .bound(.integer(Int64(row.number))))) }
            if let orderColumn, let position = positions[target.key] { sets.append((orderColumn, .bound(.integer(position)))) }
            try run(Update(destination.table, set: sets + [Self.coreDataVersionBump], where: keyIs(target.key)), destination.name)
        }
    }

    /// The rows of this side that held some of `targets` before and lose them (their to-many
    /// changed): marked changed, as Core Data saves them.
    private func markFormerOwners(of targets: [CoreDataRow], in destination: CoreDataMapping.Entity, column: String,
                                  except row: CoreDataRow, _ relationship: CoreDataMapping.Relationship,
                                  _ model: CoreDataStoreModel) throws {
        guard !targets.isEmpty, let own = model.mapping.entity(named: relationship.declaredBy) else { return }
        let quotedColumn = store.dialect.quoted(column)
        let owners = try keys(Select(destination.table, columns: .expressions([SQLFragment("DISTINCT " + quotedColumn)]),
                                     condition: "Z_PK IN (" + SQLFragment.bound(targets.map { .integer($0.key) }) + ") AND "
                                         + quotedColumn + " != " + .bound(.integer(row.key))))
        if !owners.isEmpty { try markChanged(own, keys: owners) }
    }

    /// The integers in the first column of a select's rows.
    private func keys(_ select: Select) throws -> [Int64] {
        let rendered = select.rendered(in: store.dialect)
        let statement = try connection.prepare(rendered.sql)
        defer { statement.reset() }
        try statement.bind(rendered.bindings)
        return try statement.rows().compactMap { if case .integer(let key) = $0.value(at: 0) { key } else { nil } }
    }

    /// A many-to-many: the row's join rows become one per target (both ways round for
    /// `REFLEXIVE`). Join rows that stay are kept, with their place in the other side's ordered
    /// set; in an ordered set they keep their keys unless moved (see `CoreDataOrderKeys`), and
    /// a row new to a target's ordered inverse goes last there.
    private func linkByJoinRows(_ row: CoreDataRow, _ relationship: CoreDataMapping.Relationship, table: String,
                                source: String, target: String, orderColumn: String?, to targets: [CoreDataRow],
                                _ model: CoreDataStoreModel) throws {
        let reflexive = target == "REFLEXIVE"
        if reflexive, orderColumn != nil {
            throw refusal(relationship.declaredBy, "\(relationship.name) is an ordered relationship to itself, whose order "
                          + "Core Data keeps in a way this version does not write")
        }
        let before = try joinedKeys(row, table: table, source: source, target: target)
        let after = targets.map(\.key)
        for other in before.subtracting(after).sorted() {
            var removal = "(" + equals(source, row.key) + " AND " + equals(target, other) + ")"
            if reflexive { removal = removal + " OR (" + equals(source, other) + " AND " + equals(target, row.key) + ")" }
            try run(Delete(table, where: removal), relationship.declaredBy)
        }
        var positions: [Int64: Int64] = [:]
        if let orderColumn {
            let current = try orderKeys(table, member: target, order: orderColumn, where: source, is: row.key)
            positions = CoreDataOrderKeys.keys(for: after, current: current)
            for other in after where current[other] != nil && positions[other] != current[other] {
                try run(Update(table, set: [(orderColumn, .bound(positions[other].map { .integer($0) } ?? .null))],
                               where: equals(source, row.key) + " AND " + equals(target, other)), relationship.declaredBy)
            }
        }
        let inverseOrder: (column: String, source: String)? = switch model.inverse(of: relationship)?.storage {
        case .joinTable(_, let inverseSource, _, let order?)?: (order, inverseSource)
        default: nil
        }
        for other in after where !before.contains(other) {
            var pairs = [(row.key, other)]
            if reflexive, other != row.key { pairs.append((other, row.key)) }
            for (from, to) in pairs {
                var columns = [source, target]
                var bindings: [Value] = [.integer(from), .integer(to)]
                if let orderColumn { columns.append(orderColumn); bindings.append(positions[other].map { .integer($0) } ?? .null) }
                if let inverseOrder {
                    columns.append(inverseOrder.column)
                    bindings.append(.integer(try appendedKey(table, inverseOrder.column, where: inverseOrder.source, is: to,
                                                             relationship.declaredBy)))
                }
                try run(Insert(table, columns: columns, values: bindings.map(SQLFragment.bound)), relationship.declaredBy)
            }
        }
        // The rows that gained or lost this one: their side of the relationship changed too
        // (the row itself, in a relationship to its own entity, is marked by the caller).
        let changed = before.symmetricDifference(after).filter { !reflexive || $0 != row.key }.sorted()
        if !changed.isEmpty, let destination = model.mapping.entity(named: relationship.destination) {
            try markChanged(destination, keys: changed)
        }
    }

    /// The keys a row's join rows link it to.
    private func joinedKeys(_ row: CoreDataRow, table: String, source: String, target: String) throws -> Set<Int64> {
        let reflexive = target == "REFLEXIVE"
        let dialect = store.dialect
        let other = reflexive ? "CASE WHEN " + equals(source, row.key) + " THEN " + dialect.quoted(target) + " ELSE "
            + dialect.quoted(source) + " END" : SQLFragment(dialect.quoted(target))
        var condition = equals(source, row.key)
        if reflexive { condition = condition + " OR " + equals(target, row.key) }
        return Set(try keys(Select(table, columns: .expressions([other]), condition: condition)))
    }

    /// Raises the `Z_OPT` of one row.
    private func markChanged(_ table: String, _ entity: String, key: Int64) throws {
        try run(Update(table, set: [Self.coreDataVersionBump], where: keyIs(key)), entity)
    }

    /// The `Z_ENT` of the row of `table` with `Z_PK` `key`, nil when there is none.
    private func rowNumber(_ key: Int64, in table: String) throws -> Int? {
        let select = Select(table, columns: .expressions([SQLFragment("Z_ENT")]), condition: keyIs(key)).rendered(in: store.dialect)
        if case .integer(let number)? = try connection.scalar(select.sql, select.bindings) { return Int(number) }
        return nil
    }
}
