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
        let assigned = try assignedValues(assignments, entity: entity, alias: nil)
        let database = try requireDatabase()
        let renderer = makeRenderer(options, stream: output)
        try performWrite(entity, assignments, keepingCoreData: !upsert) { context in
            var columns = assigned.map(\.attribute.name)
            var values = assigned.map(\.value)
            // A Core Data store's new row: its Z_PK, Z_ENT and Z_OPT, from the store's bookkeeping.
            if !upsert, let bookkeeping = try context.coreDataNewRow(entity.name) {
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
        }
        renderer.end()
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
        let statement = try updateStatement(name, assignments, predicate)
        let entity = try entity(name)
        guard try confirmed("update", name, predicate) else { return report("nothing updated") }
        let changed = try performWrite(entity, assignments, keepingCoreData: true) { context in
            guard let bump = try context.coreDataChange(entity.name) else {
                return try context.execute(statement.sql, statement.bindings)
            }
            let marked = try updateStatement(name, assignments, predicate, extra: bump)
            return try context.execute(marked.sql, marked.bindings)
        }
        report("updated \(changed) \(entity.name)")
    }

    func delete(_ name: Located<String>, _ predicate: PredicateText) throws {
        let statement = try deleteStatement(name, predicate)
        let entity = try entity(name)
        guard try confirmed("delete", name, predicate) else { return report("nothing deleted") }
        let changed = try performWrite(entity, []) { context in
            try context.execute(statement.sql, statement.bindings)
        }
        report("deleted \(changed) \(entity.name)")
    }
}
