import PortalEngine

extension Executor {
    /// The SQL value of each assignment, with its attribute. A value is an expression of the
    /// predicate language compiled by the engine: the same strings, functions and type rules as
    /// in a `where`. An attribute set twice is an error. Only with `alias` (update, the row's
    /// alias) may a value refer to attributes.
    func assignedValues(_ assignments: [Assignment], entity: EntityDescription,
                        alias: String?) throws -> [(attribute: AttributeDescription, value: SQLFragment)] {
        var result: [(attribute: AttributeDescription, value: SQLFragment)] = []
        for assignment in assignments {
            let attribute = try attribute(assignment.key, of: entity)
            if result.contains(where: { $0.attribute.name == attribute.name }) {
                throw ShellError("\(attribute.name) is set twice", assignment.key.range)
            }
            result.append((attribute, try value(assignment.value, for: attribute, of: entity, alias: alias)))
        }
        return result
    }

    private func value(_ text: PredicateText, for attribute: AttributeDescription, of entity: EntityDescription,
                       alias: String?) throws -> SQLFragment {
        let schema = try requireDatabase().schema
        do {
            return try PredicateCompiler.compileValue(text.text, for: attribute, variables: predicateVariables,
                                                      entity: entity, schema: schema, alias: alias,
                                                      dialect: requireDatabase().store.dialect)
        } catch let error as PredicateError {
            throw ShellError(error.description, ShellError.locate(error, in: text.text, offset: text.offset))
        }
    }

    func attribute(_ key: Located<String>, of entity: EntityDescription) throws -> AttributeDescription {
        if let attribute = entity.attribute(named: key.value) { return attribute }
        let suggestion = closestName(to: key.value, among: entity.attributes.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw ShellError("unknown attribute '\(key.value)' on \(entity.name)\(suggestion)", key.range)
    }

    func writableEntity(_ name: Located<String>) throws -> EntityDescription {
        let entity = try entity(name)
        if entity.kind == .view { throw ShellError("\(entity.name) is a view: it cannot be written", name.range) }
        return entity
    }

    /// Runs a write; errors name the entity and point at the attribute SQLite blamed.
    func performWrite<T>(_ entity: EntityDescription, _ assignments: [Assignment], keepingCoreData: Bool = false,
                         _ body: (WriteContext) throws -> T) throws -> T {
        do {
            let database = try requireDatabase()
            return try keepingCoreData ? database.writeKeepingCoreData(body) : database.write(body)
        } catch let error as PortalError {
            var shellError = ShellError.from(error)
            if error.constraint != nil || [.readOnly, .busy, .diskFull, .interrupted].contains(error.kind) {
                // Some errors (read-only) already say that nothing was written: say it once.
                let said = error.description.hasSuffix("nothing was written")
                shellError.message = "\(entity.name): \(error.description)" + (said ? "" : "; nothing was written")
            }
            if let attribute = error.attribute,
               let assignment = assignments.first(where: { $0.key.value.lowercased() == attribute.lowercased() }) {
                shellError.range = assignment.key.range
            }
            throw shellError
        }
    }

    func create(_ name: Located<String>, _ assignments: [Assignment], upsert: Bool) throws {
        let entity = try writableEntity(name)
        let (attributes, links) = try relationshipAssignments(assignments, of: entity)
        let assigned = try assignedValues(attributes, entity: entity, alias: nil)
        let database = try requireDatabase()
        let renderer = makeRenderer(options, stream: output)
        try performWrite(entity, assignments, keepingCoreData: !upsert) { context in
            var columns = assigned.map(\.attribute.name)
            var values = assigned.map(\.value)
            // A Core Data store's new row: its Z_PK, Z_ENT and Z_OPT, from the store's bookkeeping.
            let bookkeeping = upsert ? nil : try context.coreDataNewRow(entity.name)
            if let bookkeeping {
                columns = bookkeeping.map(\.column) + columns
                values = bookkeeping.map { SQLFragment.bound($0.value) } + values
            }
            let insert = Insert(entity, columns: columns, values: values, returning: .attributes(of: entity))
            // An upsert needs every part of the key (else it is a plain insert: nothing to conflict on).
            let key = entity.identifyingColumns
            let statement = upsert && !key.isEmpty && key.allSatisfy(Set(insert.columns).contains)
                ? Upsert(entity, key: key, columns: columns, values: insert.values, returning: insert.returning)
                    .rendered(in: database.store.dialect)
                : insert.rendered(in: database.store.dialect)
            try database.query(statement.sql, statement.bindings, columns: { renderer.begin(columns: $0) },
                               row: { renderer.row($0) })
            if case .integer(let newKey)? = bookkeeping?.first?.value {
                try setRelationships(links, of: entity, keys: [newKey], context)
            }
        }
        renderer.end()
    }

    /// On a Core Data store, the assignments whose key is a relationship of `entity` (not an
    /// attribute), each with the row ids its value names (`folder = 3`, `tags = {1, 2}`,
    /// `folder = nil`); the others set attributes.
    func relationshipAssignments(_ assignments: [Assignment], of entity: EntityDescription) throws
        -> (attributes: [Assignment], links: [(assignment: Assignment, targets: [Int64])]) {
        guard try requireDatabase().coreDataBanner != nil else { return (assignments, []) }
        var attributes: [Assignment] = []
        var links: [(assignment: Assignment, targets: [Int64])] = []
        for assignment in assignments {
            guard entity.settableRelationship(named: assignment.key.value) != nil else {
                attributes.append(assignment)
                continue
            }
            if links.contains(where: { $0.assignment.key.value == assignment.key.value }) {
                throw ShellError("\(assignment.key.value) is set twice", assignment.key.range)
            }
            do {
                links.append((assignment, try WriteContext.coreDataTargets(assignment.value.text)))
            } catch let error as PortalError {
                throw ShellError(error.message, assignment.value.offset..<(assignment.value.offset + assignment.value.text.count))
            }
        }
        return (attributes, links)
    }

    /// Sets each relationship of `links` on the rows `keys` of a Core Data entity.
    func setRelationships(_ links: [(assignment: Assignment, targets: [Int64])], of entity: EntityDescription,
                          keys: [Int64], _ context: WriteContext) throws {
        guard !keys.isEmpty else { return }
        for link in links {
            let name = entity.settableRelationship(named: link.assignment.key.value)?.name ?? link.assignment.key.value
            try context.setCoreDataRelationship(entity.name, keys: keys, name, to: link.targets, marksRow: false)
        }
    }

    /// `extra`: an assignment the store's bookkeeping adds (Core Data's `Z_OPT`).
    func updateStatement(_ name: Located<String>, _ assignments: [Assignment], _ predicate: PredicateText,
                         extra: (column: String, value: SQLFragment)? = nil) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        let assigned = try assignedValues(assignments, entity: entity, alias: Self.alias)
        let update = Update(entity, alias: Self.alias,
                            set: assigned.map { (column: $0.attribute.name, value: $0.value) } + (extra.map { [$0] } ?? []),
                            where: try filter(predicate, entity: entity)?.condition)
        return CompiledQuery(update.rendered(in: try requireDatabase().store.dialect))
    }

    func deleteStatement(_ name: Located<String>, _ predicate: PredicateText) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        let delete = Delete(entity, alias: Self.alias, where: try filter(predicate, entity: entity)?.condition)
        return CompiledQuery(delete.rendered(in: try requireDatabase().store.dialect))
    }

    /// In an interactive session, asks before a write that touches more than one entity.
    private func confirmed(_ verb: String, _ name: Located<String>, _ predicate: PredicateText) throws -> Bool {
        guard let confirm else { return true }
        let n = try countRows(countQuery(name, predicate))
        guard n > 1 else { return true }
        let entity = try entity(name)
        return confirm("\(verb) \(n) \(entity.name)?")
    }

    func update(_ name: Located<String>, _ assignments: [Assignment], _ predicate: PredicateText) throws {
        let entity = try entity(name)
        let (attributes, links) = try relationshipAssignments(assignments, of: entity)
        let statement = try updateStatement(name, attributes, predicate)
        guard try confirmed("update", name, predicate) else { return report("nothing updated") }
        let changed = try performWrite(entity, assignments, keepingCoreData: true) { context in
            guard let bump = try context.coreDataChange(entity.name) else {
                return try context.execute(statement.sql, statement.bindings)
            }
            // The rows' ids first: the new values may change which rows the predicate matches.
            let keys = links.isEmpty ? [] : try context.coreDataKeys(entity.name, where: filter(predicate, entity: entity)?.condition,
                                                                     alias: Self.alias)
            let marked = try updateStatement(name, attributes, predicate, extra: bump)
            let changed = try context.execute(marked.sql, marked.bindings)
            try setRelationships(links, of: entity, keys: keys, context)
            return changed
        }
        report("updated \(changed) \(entity.name)")
    }

    func delete(_ name: Located<String>, _ predicate: PredicateText) throws {
        let statement = try deleteStatement(name, predicate)
        let entity = try entity(name)
        guard try confirmed("delete", name, predicate) else { return report("nothing deleted") }
        let changed = try performWrite(entity, [], keepingCoreData: true) { context in
            // A Core Data store: the model's delete rules, join rows and inverse keys are kept.
            if let deleted = try context.coreDataDelete(entity.name, where: filter(predicate, entity: entity)?.condition,
                                                        alias: Self.alias) {
                return deleted
            }
            return try context.execute(statement.sql, statement.bindings)
        }
        report("deleted \(changed) \(entity.name)")
    }
}
