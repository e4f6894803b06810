import PortalEngine

// Deleting rows of a Core Data store as Core Data does: each relationship of a deleted row
// applies its delete rule to the rows it reaches (Nullify clears their link to it, Cascade
// deletes them too, Deny refuses while they are not deleted too, No Action leaves them), its
// join-table rows go with it, and what cannot be done faithfully refuses the whole write.

/// A row of a Core Data store: its root table, `Z_PK` and `Z_ENT`.
struct CoreDataRow: Hashable {
    var table: String
    var key: Int64
    var number: Int
}

extension WriteContext {
    /// On a Core Data store, deletes the rows of `entity` that `condition` (over `alias`; all
    /// rows when nil) matches, with what the model's delete rules do to the rows they reach;
    /// returns how many rows of `entity` matched. Nil on a plain database. Throws, writing
    /// nothing (the caller's transaction rolls back), when a rule refuses or cannot be honoured.
    func coreDataDelete(_ entity: String, where condition: SQLFragment?, alias: String = "t0") throws -> Int? {
        guard let model = try coreDataStoreModel() else { return nil }
        try checkValid()
        let described = try self.entity(named: entity)
        if case .none = model.catalog.source {
            throw refusal(described.name, "the store keeps no model, so its relationships and their delete rules are unknown "
                          + "(--model PATH gives one)")
        }
        let matched = try coreDataRows(described.table, Select(described, alias: alias, columns: rowColumns(alias),
                                                               condition: condition))
        for row in try coreDataDeletion(of: matched, model) {
            guard let entity = model.entity(number: row.number) else { continue }   // checked by coreDataDeletion
            for relationship in entity.relationships { try unlink(relationship, of: row, entity: entity, model) }
            try run(Delete(entity.table, where: keyIs(row.key)), entity.name)
        }
        return matched.count
    }

    /// The rows a delete of `matched` removes, each once: them and, by the Cascade rules, the
    /// rows they reach. Read before anything is written; refused for a row of no entity of the
    /// model, a table kept by Core Data's triggers, a rule this version does not know, and a
    /// Deny rule that reaches a row not among them (as Core Data allows a delete whose denied
    /// rows go in the same save).
    private func coreDataDeletion(of matched: [CoreDataRow], _ model: CoreDataStoreModel) throws -> [CoreDataRow] {
        var doomed: [CoreDataRow] = []
        var seen: Set<CoreDataRow> = []
        var denials: [(entity: String, relationship: CoreDataMapping.Relationship, row: CoreDataRow, reached: [CoreDataRow])] = []
        var pending = Array(matched.reversed())
        while let row = pending.popLast() {
            guard seen.insert(row).inserted else { continue }
            guard let entity = model.entity(number: row.number) else {
                throw refusal(row.table, "its row \(row.key) has Z_ENT \(row.number), which is no entity of the model")
            }
            try model.refuseTriggers(on: entity.table, writing: entity.name, .delete)
            doomed.append(row)
            for relationship in entity.relationships {
                switch relationship.deleteRule {
                case .cascade:
                    pending += try coreDataRows(reachedBy: relationship, from: row, model).filter { !seen.contains($0) }
                case .deny:
                    let reached = try coreDataRows(reachedBy: relationship, from: row, model)
                    if !reached.isEmpty { denials.append((entity.name, relationship, row, reached)) }
                case .unknown(let rule):
                    throw refusal(entity.name, "\(entity.name).\(relationship.name) has a delete rule this version does not "
                                  + "know (\(rule))")
                case .nullify, .noAction:
                    break
                }
            }
        }
        for denial in denials {
            let kept = denial.reached.filter { !seen.contains($0) }
            guard !kept.isEmpty else { continue }
            throw refusal(denial.entity, "\(denial.entity).\(denial.relationship.name) has the delete rule Deny and the "
                          + "\(denial.entity) \(denial.row.key) still has \(kept.count) \(denial.relationship.destination)")
        }
        return doomed
    }

    /// Removes what keeps `row` linked through `relationship` outside its own row: its join
    /// rows (whatever the rule: they name a row that is going), and under Nullify the key
    /// columns of the rows that point to it (with their entity and order columns; their
    /// `Z_OPT` goes up, as Core Data's save of a changed row does).
    private func unlink(_ relationship: CoreDataMapping.Relationship, of row: CoreDataRow, entity: CoreDataMapping.Entity,
                        _ model: CoreDataStoreModel) throws {
        switch relationship.storage {
        case .foreignKey:
            // Kept in the row itself; under Nullify the partner's side lets go of the row too.
            guard relationship.deleteRule == .nullify, let destination = model.mapping.entity(named: relationship.destination),
                  let inverse = model.inverse(of: relationship) else { return }
            if !inverse.isToMany, case .foreignKey(let back, let backEntity) = inverse.storage {
                try model.refuseTriggers(on: destination.table, writing: destination.name, updatedColumns([back, backEntity]))
                let cleared = [back, backEntity].compactMap { $0 }.map { (column: $0, value: SQLFragment("NULL")) }
                try run(Update(destination.table, set: cleared + [Self.coreDataVersionBump],
                               where: equals(back, row.key)), destination.name)
            } else if let partner = try coreDataRows(reachedBy: relationship, from: row, model).first {
                try markChanged(destination, keys: [partner.key])
            }
        case .inverseForeignKey(let keyColumn, let orderColumn):
            guard relationship.deleteRule == .nullify, let destination = model.mapping.entity(named: relationship.destination)
            else { return }
            let entityColumn = model.inverse(of: relationship).flatMap { inverse -> String? in
                if case .foreignKey(_, let entityColumn) = inverse.storage { entityColumn } else { nil }
            }
            try model.refuseTriggers(on: destination.table, writing: destination.name,
                                     updatedColumns([keyColumn, entityColumn, orderColumn]))
            let cleared = [keyColumn, entityColumn, orderColumn].compactMap { $0 }.map { (column: $0, value: SQLFragment("NULL")) }
            try run(Update(destination.table, set: cleared + [Self.coreDataVersionBump], where: equals(keyColumn, row.key)),
                    destination.name)
        case .joinTable(let table, let source, let destination, _):
            try model.refuseTriggers(on: table, writing: entity.name, .delete)
            // Under Nullify the rows it was linked to lose it from their side.
            if relationship.deleteRule == .nullify, let other = model.mapping.entity(named: relationship.destination) {
                let linked = try coreDataRows(reachedBy: relationship, from: row, model).map(\.key).filter { $0 != row.key }
                if !linked.isEmpty { try markChanged(other, keys: linked) }
            }
            var condition = equals(source, row.key)
            if destination == "REFLEXIVE" {   // a pair of the same entity is kept both ways round
                condition = condition + " OR " + equals(destination, row.key)
            }
            try run(Delete(table, where: condition), entity.name)
        }
    }

    /// The rows `relationship` reaches from `row`.
    func coreDataRows(reachedBy relationship: CoreDataMapping.Relationship, from row: CoreDataRow,
                      _ model: CoreDataStoreModel) throws -> [CoreDataRow] {
        guard let destination = model.mapping.entity(named: relationship.destination) else {
            throw refusal(relationship.declaredBy, "\(relationship.name) leads to \(relationship.destination), which has no table")
        }
        let dialect = store.dialect
        // `(SELECT column FROM table WHERE other = key)`.
        func keys(_ column: String, of table: String, where other: String) -> SQLFragment {
            "(" + Select(table, columns: .expressions([SQLFragment(dialect.quoted(column))]),
                         condition: equals(other, row.key)).unnumbered(in: dialect) + ")"
        }
        let condition: SQLFragment = switch relationship.storage {
        case .foreignKey(let column, _): "d.Z_PK = " + keys(column, of: row.table, where: "Z_PK")
        case .inverseForeignKey(let column, _): "d." + equals(column, row.key)
        case .joinTable(let table, let source, let target, _) where target == "REFLEXIVE":
            "d.Z_PK IN " + keys(target, of: table, where: source) + " OR d.Z_PK IN " + keys(source, of: table, where: target)
        case .joinTable(let table, let source, let target, _): "d.Z_PK IN " + keys(target, of: table, where: source)
        }
        return try coreDataRows(destination.table, Select(destination.table, alias: "d", columns: rowColumns("d"),
                                                          condition: condition))
    }

    /// `Z_PK, Z_ENT` of the rows at `alias`.
    func rowColumns(_ alias: String) -> Select.Columns {
        .expressions([SQLFragment(alias + ".Z_PK"), SQLFragment(alias + ".Z_ENT")])
    }

    /// The rows of `table` a select of `rowColumns` returns.
    func coreDataRows(_ table: String, _ select: Select) throws -> [CoreDataRow] {
        let rendered = select.rendered(in: store.dialect)
        let statement = try connection.prepare(rendered.sql)
        defer { statement.reset() }
        try statement.bind(rendered.bindings)
        return try statement.rows().compactMap { row in
            guard case .integer(let key) = row.value(at: 0) else { return nil }
            let number = if case .integer(let n) = row.value(at: 1) { Int(n) } else { 0 }
            return CoreDataRow(table: table, key: key, number: number)
        }
    }
}
