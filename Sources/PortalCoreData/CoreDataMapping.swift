import PortalEngine

/// Where each entity, attribute and relationship of a Core Data model is stored in its SQLite
/// file, found by matching the model against the store's real tables and columns (never by
/// guessing alone: the column numbering drifts between framework versions).
public struct CoreDataMapping: Sendable, Hashable {
    /// An entity and the rows of its table that are its own or its sub-entities'.
    public struct Entity: Sendable, Hashable {
        /// The model's name (`ICNote`).
        public var name: String
        /// The parent entity's name, nil for a root.
        public var parent: String?
        /// The table of its root entity (`ZICCLOUDSYNCINGOBJECT`).
        public var table: String
        /// Its `Z_ENT` number.
        public var number: Int
        /// Its own number and its sub-entities' (the values of `Z_ENT` a fetch includes).
        public var numbers: [Int]
        /// True when its numbers cover every entity of its table: a fetch needs no `Z_ENT`
        /// condition.
        public var coversTable: Bool
        /// Stored attributes, own and inherited, by name.
        public var attributes: [Attribute]
        /// Stored relationships, own and inherited, by name.
        public var relationships: [Relationship]
    }

    /// An attribute and its column.
    public struct Attribute: Sendable, Hashable {
        /// The model's name (`creationDate`).
        public var name: String
        /// The column (`ZCREATIONDATE3`).
        public var column: String
        /// The model's type: dates are seconds since 2001, UUIDs 16-byte blobs.
        public var type: CoreDataAttribute.AttributeType
        /// The entity that declares it.
        public var declaredBy: String
    }

    /// A relationship and how its rows are found.
    public struct Relationship: Sendable, Hashable {
        /// The model's name (`folder`).
        public var name: String
        /// The destination entity.
        public var destination: String
        /// The inverse relationship's name, if any.
        public var inverse: String?
        /// True for to-many.
        public var isToMany: Bool
        /// True for an ordered to-many.
        public var isOrdered: Bool
        /// Where the link is kept.
        public var storage: Storage
        /// The entity that declares it.
        public var declaredBy: String
        /// What deleting a row does to the rows it reaches.
        public var deleteRule: CoreDataRelationship.DeleteRule
    }

    /// Where a relationship's link is kept.
    public enum Storage: Sendable, Hashable {
        /// A column of this entity's table holds the destination's `Z_PK` (a to-one);
        /// `entityColumn` holds its `Z_ENT` when the destination has sub-entities.
        case foreignKey(column: String, entityColumn: String?)
        /// A column of the destination's table holds this entity's `Z_PK` (a to-many, or a
        /// to-one whose inverse keeps the column); `orderColumn` holds the position (`Z_FOK_`).
        case inverseForeignKey(column: String, orderColumn: String?)
        /// A join table (a many-to-many): `sourceColumn` holds this entity's `Z_PK`,
        /// `destinationColumn` the destination's; `orderColumn` the position when ordered.
        case joinTable(table: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)
    }

    /// Every entity of the model, in `Z_ENT` order.
    public var entities: [Entity]
    /// What was left out, in words for a banner (unknown property kinds, relationships whose
    /// storage was not found).
    public var notes: [String]

    /// The entity with this name.
    public func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}

extension CoreDataMapping {
    /// Matches `model` against the store's entity numbers and its tables (`tables`: each
    /// table's column names). Throws, naming the entity or attribute, when the model does not
    /// match the store.
    public static func build(model: CoreDataModel, numbers: [CoreDataStoreInfo.EntityNumber],
                             tables: [String: [String]]) throws -> CoreDataMapping {
        var builder = MappingBuilder(model: model, numbers: numbers, tables: tables)
        return try builder.build()
    }
}

/// The matching, step by step: entities to numbers and tables, then each root table's columns
/// to the stored properties of its hierarchy, then relationships to their storage.
private struct MappingBuilder {
    let model: CoreDataModel
    let numberOf: [String: Int]
    /// Column names by table, upper-cased table names as keys (SQLite's names ignore case).
    let tables: [String: Set<String>]
    var notes: [String]

    init(model: CoreDataModel, numbers: [CoreDataStoreInfo.EntityNumber], tables: [String: [String]]) {
        self.model = model
        numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        self.tables = Dictionary(tables.map { ($0.key.uppercased(), Set($0.value.map { $0.uppercased() })) },
                                 uniquingKeysWith: { first, _ in first })
        notes = model.ignored.map { "ignored \($0)" }
    }

    func mismatch(_ message: String, entity: String, attribute: String? = nil) -> PortalError {
        PortalError(.coreDataModel, "the model does not match the store: " + message, entity: entity, attribute: attribute)
    }

    func number(_ entity: String) throws -> Int {
        guard let number = numberOf[entity] else {
            throw mismatch("the entity \(entity) is not in Z_PRIMARYKEY", entity: entity)
        }
        return number
    }

    func tableName(ofRoot root: String) -> String { "Z" + root.uppercased() }

    func hasColumn(_ table: String, _ column: String) -> Bool {
        tables[table.uppercased()]?.contains(column.uppercased()) ?? false
    }

    mutating func build() throws -> CoreDataMapping {
        for entity in model.entities {
            // A damaged model: a parent that is not in it, or parents that go round in a cycle.
            if let top = model.root(of: entity.name), let parent = top.parent {
                throw PortalError(.coreDataModel, "the model is damaged: \(top.name)'s parent \(parent) "
                                  + (model.entity(named: parent) == nil ? "is not in the model" : "is also its descendant"),
                                  entity: top.name)
            }
        }
        var columnOf: [PropertyKey: String] = [:]
        let roots = model.entities.filter { $0.parent == nil }
        for root in roots {
            _ = try number(root.name)
            let table = tableName(ofRoot: root.name)
            guard tables[table.uppercased()] != nil else {
                throw mismatch("the entity \(root.name) has no table \(table)", entity: root.name)
            }
            columnOf.merge(try assignColumns(in: model.hierarchy(from: root.name), table: table)) { first, _ in first }
        }
        var entities: [CoreDataMapping.Entity] = []
        for entity in model.entities {
            guard let root = model.root(of: entity.name) else { continue }
            let table = tableName(ofRoot: root.name)
            let attributes = model.lineage(of: entity.name).flatMap { declaring in
                declaring.attributes.filter { !$0.isTransient }.compactMap { attribute in
                    columnOf[PropertyKey(entity: declaring.name, name: attribute.name)].map {
                        CoreDataMapping.Attribute(name: attribute.name, column: $0, type: attribute.type,
                                                  declaredBy: declaring.name)
                    }
                }
            }
            var relationships: [CoreDataMapping.Relationship] = []
            for declaring in model.lineage(of: entity.name) {
                for relationship in declaring.relationships where !relationship.isTransient {
                    if let storage = try storage(of: relationship, declaredBy: declaring.name, table: table, columnOf: columnOf) {
                        relationships.append(CoreDataMapping.Relationship(
                            name: relationship.name, destination: relationship.destination, inverse: relationship.inverse,
                            isToMany: relationship.isToMany, isOrdered: relationship.isOrdered, storage: storage,
                            declaredBy: declaring.name, deleteRule: relationship.deleteRule))
                    } else if declaring.name == entity.name {
                        notes.append("left out \(entity.name).\(relationship.name): its storage was not found in the store")
                    }
                }
            }
            entities.append(CoreDataMapping.Entity(
                name: entity.name, parent: entity.parent, table: table, number: try number(entity.name),
                numbers: try model.hierarchy(from: entity.name).map { try number($0.name) },
                coversTable: entity.parent == nil, attributes: attributes, relationships: relationships))
        }
        entities.sort { $0.number < $1.number }
        return CoreDataMapping(entities: entities, notes: notes)
    }

    /// The columns of a hierarchy's stored attributes and to-one relationships. Properties of
    /// the same name in different entities of one table share a base name and take `1`, `2`, …
    /// in `Z_ENT` order of the entities declaring them; each column must exist.
    mutating func assignColumns(in hierarchy: [CoreDataEntity], table: String) throws -> [PropertyKey: String] {
        var groups: [String: [(key: PropertyKey, number: Int)]] = [:]
        var order: [String] = []
        for entity in hierarchy {
            let number = try number(entity.name)
            let stored = entity.attributes.filter { !$0.isTransient }.map(\.name)
                + entity.relationships.filter { !$0.isToMany && !$0.isTransient }.map(\.name)
            for name in stored {
                let base = "Z" + name.uppercased()
                if groups[base] == nil { order.append(base) }
                groups[base, default: []].append((PropertyKey(entity: entity.name, name: name), number))
            }
        }
        var columns: [PropertyKey: String] = [:]
        for base in order {
            let members = (groups[base] ?? []).sorted { $0.number < $1.number }
            for (index, member) in members.enumerated() {
                let column = index == 0 ? base : base + String(index)
                if hasColumn(table, column) {
                    columns[member.key] = column
                } else if let type = attributeType(member.key) {
                    let name = "\(member.key.entity).\(member.key.name)"
                    guard Self.mayBeStoredElsewhere(type) else {
                        throw mismatch("\(name) has no column \(column) in \(table)",
                                       entity: member.key.entity, attribute: member.key.name)
                    }
                    notes.append("left out \(name): a \(type.displayName) attribute, stored otherwise than in a column \(column)")
                }
                // A to-one without a column keeps its link on the inverse's side (see storage).
            }
        }
        return columns
    }

    func attributeType(_ key: PropertyKey) -> CoreDataAttribute.AttributeType? {
        model.entity(named: key.entity)?.attributes.first { $0.name == key.name }?.type
    }

    /// Kinds of attribute whose values need not sit in one column of their own (a composite's
    /// elements have columns of their own; a newer framework's kinds are unknown here).
    static func mayBeStoredElsewhere(_ type: CoreDataAttribute.AttributeType) -> Bool {
        switch type {
        case .composite, .objectID, .undefined, .unknown: true
        default: false
        }
    }

    /// How `relationship` (declared by `declaring`, whose rows live in `table`) is stored; nil
    /// when the store has no trace of it.
    func storage(of relationship: CoreDataRelationship, declaredBy declaring: String, table: String,
                 columnOf: [PropertyKey: String]) throws -> CoreDataMapping.Storage? {
        guard let destinationRoot = model.root(of: relationship.destination) else {
            throw mismatch("\(declaring).\(relationship.name) points to \(relationship.destination), which is not in the model",
                           entity: declaring, attribute: relationship.name)
        }
        let destinationTable = tableName(ofRoot: destinationRoot.name)
        let inverse = relationship.inverse.flatMap { name in
            model.allRelationships(of: relationship.destination).first { $0.name == name }
        }
        let inverseDeclarer = relationship.inverse.flatMap { name in
            model.lineage(of: relationship.destination).last { $0.relationships.contains { $0.name == name } }?.name
        }
        if !relationship.isToMany {
            if let column = columnOf[PropertyKey(entity: declaring, name: relationship.name)] {
                let entityColumn = entityColumn(in: table, for: column)
                return .foreignKey(column: column, entityColumn: entityColumn)
            }
            // A one-to-one whose column is on the other side.
            if let inverseDeclarer, let inverse, let column = columnOf[PropertyKey(entity: inverseDeclarer, name: inverse.name)] {
                return .inverseForeignKey(column: column, orderColumn: nil)
            }
            return nil
        }
        if let inverse, let inverseDeclarer, !inverse.isToMany {
            guard let column = columnOf[PropertyKey(entity: inverseDeclarer, name: inverse.name)] else { return nil }
            let order = "Z_FOK_" + column.dropFirst()
            return .inverseForeignKey(column: column, orderColumn: hasColumn(destinationTable, order) ? order : nil)
        }
        let own = try number(declaring)
        if let inverse, let inverseDeclarer {
            return try joinTable(relationship, own: own, inverse: inverse.name, other: number(inverseDeclarer))
        }
        // A to-many without inverse: the destination's table holds Z<ent><NAME>.
        let column = "Z\(own)\(relationship.name.uppercased())"
        guard hasColumn(destinationTable, column) else { return nil }
        let order = "Z_FOK_\(own)\(relationship.name.uppercased())"
        return .inverseForeignKey(column: column, orderColumn: hasColumn(destinationTable, order) ? order : nil)
    }

    /// The join table of a many-to-many: named after one side (`Z_26ASSETS`), each side's key
    /// in a column named after the relationship that points to it (`Z_26ALBUMS` holds the
    /// album's key); a relationship that is its own inverse keeps the second key in `REFLEXIVE`.
    func joinTable(_ relationship: CoreDataRelationship, own: Int, inverse: String, other: Int) throws
        -> CoreDataMapping.Storage? {
        let name = relationship.name.uppercased()
        let inverseName = inverse.uppercased()
        for table in ["Z_\(own)\(name)", "Z_\(other)\(inverseName)"] where tables[table] != nil {
            guard let source = column(in: table, named: "Z_\(own)\(inverseName)"),
                  let destination = own == other && name == inverseName
                    ? column(in: table, named: "REFLEXIVE")
                    : column(in: table, named: "Z_\(other)\(name)") else { continue }
            return .joinTable(table: table, sourceColumn: source, destinationColumn: destination,
                              orderColumn: column(in: table, named: "Z_FOK_\(other)\(name)"))
        }
        return nil
    }

    /// `base` in `table`, or `base` with a number appended: join tables number their columns
    /// too when another join table of the entity uses the same name (`Z_34REPRESENTATIVEASSETS1`).
    func column(in table: String, named base: String) -> String? {
        guard let columns = tables[table.uppercased()] else { return nil }
        if columns.contains(base) { return base }
        return columns.filter { $0.hasPrefix(base) && $0.dropFirst(base.count).allSatisfy(\.isNumber) }.sorted().first
    }

    /// The column holding the destination's `Z_ENT` beside a to-one column: `Z<n>_<NAME>`.
    func entityColumn(in table: String, for column: String) -> String? {
        let suffix = "_" + column.dropFirst().uppercased()
        return tables[table.uppercased()]?.first { candidate in
            candidate.hasSuffix(suffix) && candidate.dropLast(suffix.count).dropFirst().allSatisfy(\.isNumber)
                && candidate.count > suffix.count + 1 && candidate.hasPrefix("Z")
        }
    }
}

/// A property by the entity that declares it.
struct PropertyKey: Hashable {
    var entity: String
    var name: String
}
