// Relationship names are part of the user contract (the man page, DESCRIPTION): users type
// them in predicates, so the rules here must stay stable and deterministic.

/// Turns foreign keys into named to-one relationships and their inverse to-many ones.
package enum RelationshipNaming {
    package static func attach(_ foreignKeys: [ForeignKey], to entities: [EntityDescription]) -> [EntityDescription] {
        var result = entities
        var index: [String: Int] = [:]
        for (position, entity) in entities.enumerated() { index[entity.name] = position }

        var inverses: [(parent: Int, name: String, key: ForeignKey, toColumns: [String])] = []
        for key in foreignKeys {
            guard let child = index[key.from], let parent = index[key.to] else { continue }
            let toColumns = key.toColumns.isEmpty ? entities[parent].identifyingColumns : key.toColumns
            guard toColumns.count == key.fromColumns.count else { continue }
            let taken = Set(result[child].attributes.map { $0.name.lowercased() })
                .union(result[child].relationships.map { $0.name.lowercased() })
            result[child].relationships.append(RelationshipDescription(
                name: toOneName(key, parentName: entities[parent].unqualifiedName, taken: taken), kind: .toOne,
                destination: key.to, sourceColumns: key.fromColumns, destinationColumns: toColumns))
            inverses.append((parent, inverseName(of: entities[child].unqualifiedName), key, toColumns))
        }

        // Inverse names collide when two foreign keys yield the same one, or when one equals a
        // name the parent already has: all of those get `_by<Column>`.
        var counts: [String: Int] = [:]
        for inverse in inverses { counts["\(inverse.parent)\u{0}\(inverse.name.lowercased())", default: 0] += 1 }
        for inverse in inverses {
            let parent = result[inverse.parent]
            let existing = Set(parent.attributes.map { $0.name.lowercased() })
                .union(parent.relationships.filter { $0.kind == .toOne }.map { $0.name.lowercased() })
            let shared = counts["\(inverse.parent)\u{0}\(inverse.name.lowercased())", default: 0] > 1
            let name = shared || existing.contains(inverse.name.lowercased())
                ? inverse.name + "_by" + inverse.key.fromColumns.joined(separator: "_")
                : inverse.name
            result[inverse.parent].relationships.append(RelationshipDescription(
                name: name, kind: .toMany, destination: inverse.key.from,
                sourceColumns: inverse.toColumns, destinationColumns: inverse.key.fromColumns))
        }
        return result
    }

    /// `AlbumId` → `Album`, `SupportRepId` → `SupportRep`, `artist_id` → `artist`; a composite
    /// key is named after its parent. When that name is empty or taken (`region_id` where an
    /// attribute `region` exists, `ReportsTo` with no suffix to strip), `Ref` is added
    /// (`regionRef`, `ReportsToRef`): never the column's own name, which an attribute has.
    static func toOneName(_ key: ForeignKey, parentName: String, taken: Set<String>) -> String {
        // One column (most keys) is not joined: `joined(separator:)` is a generic call whose first
        // use looks up the array's conformances at run time, at every start (`shell.startup`).
        let column = key.fromColumns.count == 1 ? key.fromColumns[0] : key.fromColumns.joined(separator: "_")
        var name = key.fromColumns.count == 1 ? strippingIdentifierSuffix(column) : parentName
        if name.isEmpty { name = column }
        if !taken.contains(name.lowercased()) { return name }
        name += "Ref"
        while taken.contains(name.lowercased()) { name += "_" }
        return name
    }

    static func strippingIdentifierSuffix(_ name: String) -> String {
        for suffix in ["_id", "Id", "ID"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    /// `Track` → `tracks`, `InvoiceLine` → `invoiceLines`; a name already ending in `s` is
    /// taken as a plural and kept (`cities` → `cities`, not `citiess`).
    static func inverseName(of entity: String) -> String {
        guard let first = entity.first else { return "s" }
        // A String, not the Substring: appending a Substring is a generic call whose first use
        // looks up the Substring's conformances at run time, at every start (`shell.startup`).
        let lowered = first.lowercased() + String(entity.dropFirst())
        return entity.last == "s" || entity.last == "S" ? lowered : lowered + "s"
    }
}

extension EntityDescription {
    /// The name without its schema (`OrderLines` for `sales.OrderLines`), which relationships
    /// are named after: a key path cannot hold the dot.
    var unqualifiedName: String { namespace != nil && name != table ? table : name }

    /// The to-one relationship a key path traverses with this name: the relationship's own name,
    /// or its foreign key column's (`ReportsTo.FirstName`, `SupportRepId.FirstName`).
    public func toOneRelationship(traversing name: String) -> RelationshipDescription? {
        let toOne = relationships.filter { $0.kind == .toOne }
        if let byName = toOne.first(where: { $0.name == name }) { return byName }
        if let byColumn = toOne.first(where: { $0.sourceColumns == [name] }) { return byColumn }
        let lowered = name.lowercased()
        let matches = toOne.filter {
            $0.name.lowercased() == lowered || ($0.sourceColumns.count == 1 && $0.sourceColumns[0].lowercased() == lowered)
        }
        return matches.count == 1 ? matches[0] : nil
    }
}
