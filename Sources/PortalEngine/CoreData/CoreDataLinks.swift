import PortalPredicate

// Setting a relationship of a Core Data row writes wherever the store keeps it: the row's own
// key column (and the entity column beside it when the destination has sub-entities), the
// destination rows' key columns (a to-many kept by its inverse), or join-table rows (a
// many-to-many; `REFLEXIVE` pairs both ways round). Ordered relationships get the positions in
// the order given (1, 2, …), and a row added to the other side's ordered set goes last there.

extension WriteContext {
    /// The row ids a relationship's value names: `3` (a to-one), `{1, 2}` (a to-many), `nil`
    /// or `{}` (none). Throws for anything else.
    public static func coreDataTargets(_ text: String) throws -> [Int64] {
        let expression: Expression
        do { expression = try Expression.parse(text) } catch {
            throw PortalError(.misuse, "a relationship's value is a row's id, ids in braces ({1, 2}) or nil: \(error)")
        }
        let items: [Expression] = if case .aggregate(let list) = expression { list } else { [expression] }
        return try items.compactMap { item -> Int64? in
            switch item {
            case .literal(.integer(let key)): return key
            case .literal(.null) where items.count == 1: return nil
            default:
                throw PortalError(.misuse, "a relationship's value is a row's id (its Z_PK), ids in braces ({1, 2}) or nil, "
                                  + "not \(text)")
            }
        }
    }

    /// On a Core Data store, sets `relationship` of the row of `entity` whose `Z_PK` is `key`
    /// to the rows with ids `targets` (none clears it), in order for an ordered relationship;
    /// changed rows' `Z_OPT` goes up.
    /// `marksRow` false: the caller's insert or update of the row has set its `Z_OPT`.
    public func setCoreDataRelationship(_ entity: String, key: Int64, _ relationship: String, to targets: [Int64],
                                        marksRow: Bool = true) throws {
        try setCoreDataRelationship(entity, keys: [key], relationship, to: targets, marksRow: marksRow)
    }

    /// `setCoreDataRelationship` for each of the rows `keys` (the model read once).
    public func setCoreDataRelationship(_ entity: String, keys: [Int64], _ relationship: String, to targets: [Int64],
                                        marksRow: Bool = true) throws {
        guard let model = try coreDataStoreModel() else {
            throw PortalError(.misuse, "relationships are set this way only on a Core Data store", entity: entity)
        }
        try linkCoreData(model, entity, keys: keys, relationship, to: targets, marksRow: marksRow)
    }

    /// On a Core Data store, the values of `pairs` that set a to-one relationship (named by the
    /// model, not an attribute) to a row's id or nil, apart from those setting attributes.
    func coreDataLinks(_ entity: EntityDescription, _ pairs: [(key: String, value: Value)]) throws
        -> (attributes: [(key: String, value: Value)], links: [(name: String, targets: [Int64])]) {
        guard store.coreDataCatalog != nil else { return (pairs, []) }
        var attributes: [(key: String, value: Value)] = []
        var links: [(name: String, targets: [Int64])] = []
        for pair in pairs {
            guard let relationship = entity.settableRelationship(named: pair.key) else {
                attributes.append(pair)
                continue
            }
            switch (relationship.kind, pair.value) {
            case (.toOne, .integer(let key)): links.append((relationship.name, [key]))
            case (.toOne, .null): links.append((relationship.name, []))
            default:
                throw PortalError(.misuse, "\(entity.name).\(relationship.name) takes a row's id or nil here "
                                  + "(setCoreDataRelationship sets to-many relationships)", entity: entity.name,
                                  attribute: relationship.name)
            }
        }
        return (attributes, links)
    }

    /// The ids (`Z_PK`) of the rows of `entity` that `condition` (over `alias`) matches.
    public func coreDataKeys(_ entity: String, where condition: SQLFragment?, alias: String = "t0") throws -> [Int64] {
        let described = try self.entity(named: entity)
        let select = Select(described, alias: alias, columns: .expressions([SQLFragment(column(alias, "Z_PK")),
                                                                             SQLFragment(column(alias, "Z_ENT"))]),
                            condition: condition).rendered(in: store.dialect)
        return try coreDataRows(described.table, select.sql, select.bindings).map(\.key)
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
        try model.refuseTriggers(on: mapped.table, writing: entityName)
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
                try model.refuseTriggers(on: table, writing: entityName)
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
        if let target, let inverse, !inverse.isToMany {
            let cleared = [column, entityColumn].compactMap { $0 }.map { quoted($0) + " = NULL" }
            try runWrite(relationship.declaredBy, "UPDATE " + quoted(row.table) + " SET " + cleared.joined(separator: ", ")
                         + ", Z_OPT = coalesce(Z_OPT, 0) + 1 WHERE " + quoted(column) + " = ? AND Z_PK != ?",
                         [.integer(target.key), .integer(row.key)], returning: false)
        }
        var sets = [quoted(column) + " = ?"]
        var bindings: [Value] = [target.map { .integer($0.key) } ?? .null]
        if let entityColumn {
            sets.append(quoted(entityColumn) + " = ?")
            bindings.append(target.map { .integer(Int64($0.number)) } ?? .null)
        }
        // The inverse is an ordered to-many: the row goes last in the target's set.
        if case .inverseForeignKey(_, let order?)? = inverse?.storage {
            sets.append(quoted(order) + " = " + (target == nil ? "NULL" : "(SELECT coalesce(max(" + quoted(order) + "), 0) + 1 FROM "
                                                  + quoted(row.table) + " WHERE " + quoted(column) + " = ?)"))
            if let target { bindings.append(.integer(target.key)) }
        }
        try runWrite(relationship.declaredBy, "UPDATE " + quoted(row.table) + " SET " + sets.joined(separator: ", ")
                     + " WHERE Z_PK = ?", bindings + [.integer(row.key)], returning: false)
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
        try model.refuseTriggers(on: destination.table, writing: destination.name)
        let table = quoted(destination.table)
        let cleared = [column, entityColumn, orderColumn].compactMap { $0 }.map { quoted($0) + " = NULL" }
        let kept = targets.map { _ in "?" }.joined(separator: ", ")
        try runWrite(destination.name, "UPDATE " + table + " SET " + cleared.joined(separator: ", ")
                     + ", Z_OPT = coalesce(Z_OPT, 0) + 1 WHERE " + quoted(column) + " = ? AND Z_PK NOT IN (" + kept + ")",
                     [.integer(row.key)] + targets.map { .integer($0.key) }, returning: false)
        for (position, target) in targets.enumerated() {
            var sets = [quoted(column) + " = ?"]
            var bindings: [Value] = [.integer(row.key)]
            if let entityColumn { sets.append(quoted(entityColumn) + " = ?"); bindings.append(.integer(Int64(row.number))) }
            if let orderColumn { sets.append(quoted(orderColumn) + " = ?"); bindings.append(.integer(Int64(position + 1))) }
            try runWrite(destination.name, "UPDATE " + table + " SET " + sets.joined(separator: ", ")
                         + ", Z_OPT = coalesce(Z_OPT, 0) + 1 WHERE Z_PK = ?", bindings + [.integer(target.key)], returning: false)
        }
    }

    /// A many-to-many: the row's join rows are replaced by one per target (both ways round for
    /// `REFLEXIVE`), with its position in the ordered set and the row's last place in the
    /// target's ordered inverse.
    private func linkByJoinRows(_ row: CoreDataRow, _ relationship: CoreDataMapping.Relationship, table: String,
                                source: String, target: String, orderColumn: String?, to targets: [CoreDataRow],
                                _ model: CoreDataStoreModel) throws {
        let reflexive = target == "REFLEXIVE"
        if reflexive, orderColumn != nil {
            throw refusal(relationship.declaredBy, "\(relationship.name) is an ordered relationship to itself, whose order "
                          + "Core Data keeps in a way this version does not write")
        }
        var removal = "DELETE FROM " + quoted(table) + " WHERE " + quoted(source) + " = ?"
        if reflexive { removal += " OR " + quoted(target) + " = ?" }
        try runWrite(relationship.declaredBy, removal, reflexive ? [.integer(row.key), .integer(row.key)] : [.integer(row.key)],
                     returning: false)
        let inverseOrder: (column: String, source: String)? = switch model.inverse(of: relationship)?.storage {
        case .joinTable(_, let inverseSource, _, let order?)?: (order, inverseSource)
        default: nil
        }
        for (position, other) in targets.enumerated() {
            var pairs = [(row.key, other.key)]
            if reflexive, other.key != row.key { pairs.append((other.key, row.key)) }
            for (from, to) in pairs {
                var columns = [source, target]
                var values = ["?", "?"]
                var bindings: [Value] = [.integer(from), .integer(to)]
                if let orderColumn { columns.append(orderColumn); values.append("?"); bindings.append(.integer(Int64(position + 1))) }
                if let inverseOrder {
                    columns.append(inverseOrder.column)
                    values.append("(SELECT coalesce(max(" + quoted(inverseOrder.column) + "), 0) + 1 FROM " + quoted(table)
                                  + " WHERE " + quoted(inverseOrder.source) + " = ?)")
                    bindings.append(.integer(to))
                }
                try runWrite(relationship.declaredBy, "INSERT INTO " + quoted(table) + " (" + columns.map(quoted).joined(separator: ", ")
                             + ") VALUES (" + values.joined(separator: ", ") + ")", bindings, returning: false)
            }
        }
    }

    /// Raises the `Z_OPT` of one row.
    private func markChanged(_ table: String, _ entity: String, key: Int64) throws {
        try runWrite(entity, "UPDATE " + quoted(table) + " SET Z_OPT = coalesce(Z_OPT, 0) + 1 WHERE Z_PK = ?", [.integer(key)],
                     returning: false)
    }

    /// The `Z_ENT` of the row of `table` with `Z_PK` `key`, nil when there is none.
    private func rowNumber(_ key: Int64, in table: String) throws -> Int? {
        if case .integer(let number)? = try connection.scalar("SELECT Z_ENT FROM " + quoted(table) + " WHERE Z_PK = ?",
                                                              [.integer(key)]) {
            return Int(number)
        }
        return nil
    }
}
