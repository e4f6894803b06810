import PortalEngine

extension Executor {
    /// Functions allowed in `set` expressions (plain SQLite scalar functions, no side effects).
    static let expressionFunctions: Set<String> = [
        "abs", "coalesce", "ifnull", "length", "lower", "upper", "trim", "ltrim", "rtrim", "round", "substr",
        "replace", "date", "time", "datetime", "julianday", "strftime", "max", "min", "nullif", "printf", "instr",
    ]

    /// Translates a `set` expression to SQL with bound values. Attributes may be referenced only
    /// when `allowAttributes` (update).
    func expressionSQL(_ tokens: [Token], entity: EntityDescription, allowAttributes: Bool) throws -> SQLFragment {
        var sql = ""
        var bindings: [Value] = []
        for (i, token) in tokens.enumerated() {
            if !sql.isEmpty { sql += " " }
            switch token.kind {
            case .string:
                sql += "?"
                bindings.append(.text(token.text))
            case .number:
                sql += "?"
                if let n = Int64(token.text) { bindings.append(.integer(n)) } else if let r = Double(token.text) {
                    bindings.append(.real(r))
                } else {
                    throw ShellError("'\(token.text)' is not a number", token.range)
                }
            case .variable:
                sql += "?"
                bindings.append(try value(of: .variable(token.text), range: token.range))
            case .symbol:
                guard ["+", "-", "*", "/", "%", "(", ")", "||", ","].contains(token.text) else {
                    throw ShellError("unexpected '\(token.text)' in a value", token.range)
                }
                sql += token.text
            case .word:
                let lowered = token.text.lowercased()
                if ["null", "nil"].contains(lowered) {
                    sql += "NULL"
                } else if ["true", "yes"].contains(lowered) {
                    sql += "1"
                } else if ["false", "no"].contains(lowered) {
                    sql += "0"
                } else if i + 1 < tokens.count && tokens[i + 1].isSymbol("(") {
                    guard Self.expressionFunctions.contains(lowered) else {
                        throw ShellError("unknown function '\(token.text)'", token.range)
                    }
                    sql += lowered
                } else if let attribute = entity.attribute(named: token.text) {
                    guard allowAttributes else {
                        throw ShellError("a value here cannot refer to an attribute (quote text: \"\(token.text)\")", token.range)
                    }
                    sql += quoted(attribute.name)
                } else {
                    let suggestion = closestName(to: token.text, among: entity.attributes.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                    throw ShellError("unknown attribute '\(token.text)' on \(entity.name)\(suggestion)", token.range)
                }
            }
        }
        return SQLFragment(sql, bindings)
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
    func performWrite<T>(_ entity: EntityDescription, _ assignments: [Assignment],
                         _ body: (WriteContext) throws -> T) throws -> T {
        do {
            return try requireDatabase().write(body)
        } catch let error as PortalError {
            var shellError = ShellError.from(error)
            if error.constraint != nil || [.readOnly, .busy, .diskFull, .interrupted].contains(error.kind) {
                shellError.message = "\(entity.name): \(error.description); nothing was written"
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
        var columns: [String] = []
        var values: [String] = []
        var bindings: [Value] = []
        for assignment in assignments {
            let attribute = try attribute(assignment.key, of: entity)
            let expression = try expressionSQL(assignment.expression, entity: entity, allowAttributes: false)
            columns.append(quoted(attribute.name))
            values.append(expression.sql)
            bindings += expression.bindings
        }
        var sql = "INSERT INTO \(quoted(entity.name)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        if upsert {
            let key = entity.identifyingColumns
            let assigned = Set(assignments.compactMap { entity.attribute(named: $0.key.value)?.name })
            let updates = assigned.subtracting(key).sorted().map { "\(quoted($0)) = excluded.\(quoted($0))" }
            if key.allSatisfy(assigned.contains) {
                sql += " ON CONFLICT (\(key.map(quoted).joined(separator: ", "))) DO "
                    + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
            }
        }
        if assignments.isEmpty { sql = "INSERT INTO \(quoted(entity.name)) DEFAULT VALUES" }
        sql += " RETURNING " + entity.attributes.map { quoted($0.name) }.joined(separator: ", ")
        let database = try requireDatabase()
        let renderer = makeRenderer(options, stream: output)
        try performWrite(entity, assignments) { _ in
            try database.query(sql, bindings, columns: { renderer.begin(columns: $0) }, row: { renderer.row($0) })
        }
        renderer.end()
    }

    func updateStatement(_ name: Located<String>, _ assignments: [Assignment], _ predicate: PredicateText) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        var sets: [String] = []
        var bindings: [Value] = []
        for assignment in assignments {
            let attribute = try attribute(assignment.key, of: entity)
            let expression = try expressionSQL(assignment.expression, entity: entity, allowAttributes: true)
            sets.append("\(quoted(attribute.name)) = \(expression.sql)")
            bindings += expression.bindings
        }
        var sql = "UPDATE \(quoted(entity.name)) AS \(Self.alias) SET " + sets.joined(separator: ", ")
        if let filter = try filter(predicate, entity: entity) {
            sql += " WHERE " + filter.condition.sql
            bindings += filter.condition.bindings
        }
        return CompiledQuery(sql: sql, bindings: bindings)
    }

    func deleteStatement(_ name: Located<String>, _ predicate: PredicateText) throws -> CompiledQuery {
        let entity = try writableEntity(name)
        var sql = "DELETE FROM \(quoted(entity.name)) AS \(Self.alias)"
        var bindings: [Value] = []
        if let filter = try filter(predicate, entity: entity) {
            sql += " WHERE " + filter.condition.sql
            bindings += filter.condition.bindings
        }
        return CompiledQuery(sql: sql, bindings: bindings)
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
        let changed = try performWrite(entity, assignments) { context in
            try context.execute(statement.sql, statement.bindings)
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
