import PortalPredicate

// Resolves key paths against the schema: names match case-insensitively, and an unknown name is
// an error that names the entity and the closest existing name.

/// What a key path ends at.
enum KeyPathEnd {
    case attribute(Scope, AttributeDescription)
    case toOne(Scope, RelationshipDescription)
    case toMany(Scope, RelationshipDescription)
    /// The row itself (an empty key path, `SELF`, a `SUBQUERY` variable).
    case row(Scope)
    /// A key path into the JSON document of an attribute (`doc.a.b`): the keys after it.
    case json(Scope, AttributeDescription, [String])
}

extension SQLCompiler {
    /// Walks `names` from `scope`. To-one steps extend the scope's path; a to-many step enters
    /// `collection` (the rows the comparison ranges over) and continues from its element.
    func walk(_ scope: Scope, _ names: ArraySlice<String>) throws -> KeyPathEnd {
        var current = scope
        // Indices rather than `zip`: the first zip of these types makes the runtime look up a
        // conformance through every one the program has (a third of a short command's work).
        for offset in names.indices {
            let name = names[offset]
            let entity = current.entity
            if offset == names.index(before: names.endIndex) {
                if let attribute = entity.attribute(named: name) { return .attribute(current, attribute) }
                if let relationship = entity.relationship(named: name) {
                    return relationship.kind == .toOne ? .toOne(current, relationship) : .toMany(current, relationship)
                }
                throw unknownName(name, in: entity)
            }
            if let relationship = entity.toOneRelationship(traversing: name) {
                current = traverse(relationship, from: current)
            } else if let relationship = entity.relationship(named: name), relationship.kind == .toMany {
                current = try enter(relationship, from: current)
            } else if let attribute = entity.attribute(named: name), holdsJSON(attribute) {
                return .json(current, attribute, Array(names[names.index(after: offset)...]))
            } else if let attribute = entity.attribute(named: name) {
                failingToken = name
                throw PortalPredicateError(.invalidOperation,
                                     "'\(attribute.name)' is an attribute of \(entity.name), not a relationship: "
                                         + "the key path cannot continue with '.\(names[names.index(after: offset)])'")
            } else {
                throw unknownName(name, in: entity)
            }
        }
        return .row(current)
    }

    /// The row a to-one relationship leads to, reached by a join on the foreign key.
    func traverse(_ relationship: RelationshipDescription, from scope: Scope) -> Scope {
        let destination = entity(relationship.destination)
        let alias = newAlias()
        var next = Scope(entity: destination, alias: alias, variables: scope.variables)
        next.path = scope.path + JoinStep.following(relationship, to: destination, from: scope.alias, to: alias,
                                                    joinAlias: newAlias, dialect: dialect)
        next.baseAlias = scope.baseAlias
        return next
    }

    /// Enters the rows of a to-many relationship: they join `collection`, and the walk goes on
    /// from one element. A second, unrelated to-many path in the same comparison is an error.
    func enter(_ relationship: RelationshipDescription, from scope: Scope) throws -> Scope {
        let destination = entity(relationship.destination)
        let alias = newAlias()
        let steps = scope.path + JoinStep.following(relationship, to: destination, from: scope.alias, to: alias,
                                                    joinAlias: newAlias, dialect: dialect)
        if var existing = collection {
            guard existing.elementAlias == scope.baseAlias else {
                throw PortalPredicateError(.invalidOperation,
                                     "one comparison can range over only one to-many key path ('\(relationship.name)' is a second one)")
            }
            existing.steps += steps
            existing.elementAlias = alias
            existing.crossings += 1
            collection = existing
        } else {
            collection = Collection(steps: steps, elementAlias: alias, crossings: 1, leadingToOne: scope.path.count)
        }
        return Scope(entity: destination, alias: alias, variables: scope.variables)
    }

    /// True when the dialect reads the attribute's column as a JSON document (`doc.a.b`).
    func holdsJSON(_ attribute: AttributeDescription) -> Bool {
        dialect.jsonValue("", declaredType: attribute.declaredType, keys: [], comparedWith: nil) != nil
    }

    /// True when the dialect reads the attribute's column as a collection of values (`tags`).
    func holdsCollection(_ attribute: AttributeDescription) -> Bool {
        dialect.collectionElements("", declaredType: attribute.declaredType) != nil
    }

    /// The elements of a collection column (an array, a JSON array) of the row at `scope`,
    /// entered as a to-many relationship's rows are (`enter`): `ANY tags == "x"`, `"x" IN tags`
    /// and `tags.@count` then compile as they do over related rows. Nil for any other attribute.
    func enterCollection(_ attribute: AttributeDescription, of scope: Scope) throws -> Operand? {
        guard let elements = dialect.collectionElements(column(scope.alias, attribute.column, dialect),
                                                        declaredType: attribute.declaredType) else { return nil }
        let alias = newAlias()
        let value = alias + "." + (elements.valueColumn.map(dialect.quoted) ?? alias)
        let step = JoinStep(table: elements.from, entity: nil, alias: alias, on: dialect.boolean(true), presence: value)
        if var existing = collection {
            guard existing.elementAlias == scope.baseAlias else {
                throw PortalPredicateError(.invalidOperation,
                                     "one comparison can range over only one to-many key path ('\(attribute.name)' is a second one)")
            }
            existing.steps += scope.path + [step]
            existing.elementAlias = alias
            existing.crossings += 1
            collection = existing
        } else {
            collection = Collection(steps: scope.path + [step], elementAlias: alias, crossings: 1, leadingToOne: scope.path.count)
        }
        // An array's elements have its element type (`text` of `text[]`); a JSON array's, none.
        let elementType = attribute.declaredType.hasSuffix("[]") ? String(attribute.declaredType.dropLast(2)) : nil
        return .scalar(.raw(value), ScalarInfo(attribute: elementType.map {
            AttributeDescription(name: attribute.name, declaredType: $0, isNullable: true, defaultValue: nil, primaryKeyPosition: nil)
        }))
    }

    /// The entity a relationship points to; the reader only makes relationships to existing ones.
    func entity(_ name: String) -> EntityDescription {
        schema.entity(named: name)
            ?? EntityDescription(name: name, kind: .table, attributes: [], primaryKey: [], hasRowid: true,
                                 relationships: [], indexes: [])
    }

    func unknownName(_ name: String, in entity: EntityDescription) -> PortalPredicateError {
        failingToken = name
        let candidates = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        return PortalPredicateError(.unknownName, "\(entity.name) has no attribute or relationship named '\(name)'",
                              suggestion: closestName(to: name, among: candidates))
    }
}
