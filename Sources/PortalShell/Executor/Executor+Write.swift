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
        } catch let error as PortalPredicateError {
            throw ShellError.from(PortalError(wrapping: error), in: text.text, offset: text.offset)
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
            if error.constraint != nil || [.readOnly, .notWritable, .busy, .diskFull, .interrupted].contains(error.kind) {
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
        let written = try engineAssignments(assignments, of: entity, alias: nil)
        let renderer = makeRenderer(options, stream: output)
        let result = try performWrite(entity, assignments, keepingCoreData: !upsert) { context in
            upsert ? try context.upsert(entity.name, written, returning: .attributes(of: entity))
                : try context.insert(entity.name, written, returning: .attributes(of: entity))
        }
        renderer.begin(columns: entity.attributes.map(\.name))
        for row in result.rows { renderer.row(row.values) }
        renderer.end()
    }

    /// The engine's assignments for a command's: attributes set to compiled expressions and, on
    /// a Core Data store, relationships set to row ids.
    func engineAssignments(_ assignments: [Assignment], of entity: EntityDescription, alias: String?) throws
        -> [AttributeAssignment] {
        let (attributes, links) = try relationshipAssignments(assignments, of: entity)
        let values = try assignedValues(attributes, entity: entity, alias: alias)
        return values.map { AttributeAssignment.expression($0.attribute.name, $0.value) }
            + links.map { link in
                .rows(entity.settableRelationship(named: link.assignment.key.value)?.name ?? link.assignment.key.value, link.targets)
            }
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
                links.append((assignment, try AttributeAssignment.rowIDs(assignment.value.text)))
            } catch let error as PortalError {
                throw ShellError(error.message, assignment.value.offset..<(assignment.value.offset + assignment.value.text.count))
            }
        }
        return (attributes, links)
    }

    /// The statement `update` runs, for `explain`.
    func updateQuery(_ name: Located<String>, _ assignments: [Assignment], _ predicate: PredicateText) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        let written = try engineAssignments(assignments, of: entity, alias: Self.alias)
        let condition = try filter(predicate, entity: entity)?.condition
        return CompiledQuery(try requireDatabase().reading { try $0.updateStatement(entity.name, written, where: .condition(condition)) })
    }

    /// The statement `delete` runs on a plain database, for `explain`.
    func deleteQuery(_ name: Located<String>, _ predicate: PredicateText) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        let condition = try filter(predicate, entity: entity)?.condition
        return CompiledQuery(try requireDatabase().reading { try $0.deleteStatement(entity.name, where: .condition(condition)) })
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
        let entity = try writableEntity(name)
        let written = try engineAssignments(assignments, of: entity, alias: Self.alias)
        let condition = try filter(predicate, entity: entity)?.condition
        guard try confirmed("update", name, predicate) else { return report("nothing updated") }
        let result = try performWrite(entity, assignments, keepingCoreData: true) { context in
            try context.update(entity.name, written, where: .condition(condition))
        }
        report("updated \(result.matched) \(entity.name)")
    }

    func delete(_ name: Located<String>, _ predicate: PredicateText) throws {
        let entity = try writableEntity(name)
        let condition = try filter(predicate, entity: entity)?.condition
        guard try confirmed("delete", name, predicate) else { return report("nothing deleted") }
        let result = try performWrite(entity, [], keepingCoreData: true) { context in
            try context.delete(entity.name, where: .condition(condition))
        }
        report("deleted \(result.matched) \(entity.name)")
    }
}
