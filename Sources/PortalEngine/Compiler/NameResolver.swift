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
}

extension SQLCompiler {
    /// Walks `names` from `scope`. To-one steps extend the scope's path; a to-many step enters
    /// `collection` (the rows the comparison ranges over) and continues from its element.
    func walk(_ scope: Scope, _ names: ArraySlice<String>) throws -> KeyPathEnd {
        var current = scope
        for (offset, name) in zip(names.indices, names) {
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
            } else if let attribute = entity.attribute(named: name) {
                failingToken = name
                throw PredicateError(.invalidOperation,
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
        next.path = scope.path + [JoinStep.following(relationship, from: scope.alias, to: alias)]
        next.baseAlias = scope.baseAlias
        return next
    }

    /// Enters the rows of a to-many relationship: they join `collection`, and the walk goes on
    /// from one element. A second, unrelated to-many path in the same comparison is an error.
    func enter(_ relationship: RelationshipDescription, from scope: Scope) throws -> Scope {
        let alias = newAlias()
        let steps = scope.path + [JoinStep.following(relationship, from: scope.alias, to: alias)]
        if var existing = collection {
            guard existing.elementAlias == scope.baseAlias else {
                throw PredicateError(.invalidOperation,
                                     "one comparison can range over only one to-many key path ('\(relationship.name)' is a second one)")
            }
            existing.steps += steps
            existing.elementAlias = alias
            existing.crossings += 1
            collection = existing
        } else {
            collection = Collection(steps: steps, elementAlias: alias, crossings: 1, leadingToOne: scope.path.count)
        }
        return Scope(entity: entity(relationship.destination), alias: alias, variables: scope.variables)
    }

    /// The entity a relationship points to; the reader only makes relationships to existing ones.
    func entity(_ name: String) -> EntityDescription {
        schema.entity(named: name)
            ?? EntityDescription(name: name, kind: .table, attributes: [], primaryKey: [], hasRowid: true,
                                 relationships: [], indexes: [])
    }

    func unknownName(_ name: String, in entity: EntityDescription) -> PredicateError {
        failingToken = name
        let candidates = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        return PredicateError(.unknownName, "\(entity.name) has no attribute or relationship named '\(name)'",
                              suggestion: closest(to: name, among: candidates))
    }
}

/// The candidate nearest to `name` by edit distance (ignoring case), when it is near enough to be
/// a plausible typo.
func closest(to name: String, among candidates: [String]) -> String? {
    let target = Array(name.lowercased())
    var best: (String, Int)?
    for candidate in candidates {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
    }
    guard let best, best.1 <= max(2, target.count / 3) else { return nil }
    return best.0
}

/// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
/// transpositions each cost one.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], previous2[j - 2] + 1)
            }
        }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
}
