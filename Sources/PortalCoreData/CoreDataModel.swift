import PortalEngine

/// A Core Data managed object model as the app's code names it: entities, their attributes and
/// relationships, read from a store's `Z_MODELCACHE`, an Xcode model file or a compiled `.mom`.
public struct CoreDataModel: Sendable, Hashable {
    /// Every entity, in the order the source lists them.
    public var entities: [CoreDataEntity]
    /// What the reader skipped because it does not know it (a newer framework's kinds of
    /// property, say), in words for a banner.
    public var ignored: [String]

    /// A model of these entities.
    public init(entities: [CoreDataEntity], ignored: [String] = []) {
        self.entities = entities
        self.ignored = ignored
    }

    /// The entity with this name.
    public func entity(named name: String) -> CoreDataEntity? { entities.first { $0.name == name } }

    /// The entities whose parent is `name`.
    public func subentities(of name: String) -> [CoreDataEntity] { entities.filter { $0.parent == name } }

    /// `name` and every entity below it, parents before children (each once, even when a
    /// damaged model makes the parents a cycle).
    public func hierarchy(from name: String) -> [CoreDataEntity] {
        var result: [CoreDataEntity] = []
        var pending = [name]
        var seen: Set<String> = []
        while !pending.isEmpty {
            let next = pending.removeFirst()
            guard seen.insert(next).inserted, let entity = entity(named: next) else { continue }
            result.append(entity)
            pending += subentities(of: next).map(\.name)
        }
        return result
    }

    /// The entity at the top of `name`'s hierarchy (whose table holds its rows).
    public func root(of name: String) -> CoreDataEntity? {
        var current = entity(named: name)
        var seen: Set<String> = []
        while let parent = current?.parent, seen.insert(parent).inserted, let next = entity(named: parent) {
            current = next
        }
        return current
    }

    /// `name`'s own properties and those it inherits, ancestors' first (as Core Data assigns
    /// columns).
    public func allAttributes(of name: String) -> [CoreDataAttribute] {
        lineage(of: name).flatMap(\.attributes)
    }

    /// `name`'s own relationships and those it inherits, ancestors' first.
    public func allRelationships(of name: String) -> [CoreDataRelationship] {
        lineage(of: name).flatMap(\.relationships)
    }

    /// The root of `name`'s hierarchy down to `name`.
    func lineage(of name: String) -> [CoreDataEntity] {
        var chain: [CoreDataEntity] = []
        var current = entity(named: name)
        while let entity = current, !chain.contains(where: { $0.name == entity.name }) {
            chain.insert(entity, at: 0)
            current = entity.parent.flatMap { self.entity(named: $0) }
        }
        return chain
    }
}

/// An entity of a Core Data model.
public struct CoreDataEntity: Sendable, Hashable {
    /// The entity's name (`ICNote`).
    public var name: String
    /// The parent entity's name, nil for a root entity.
    public var parent: String?
    /// True for an abstract entity (no rows of its own).
    public var isAbstract: Bool
    /// The attributes the entity declares itself (inherited ones are its parent's).
    public var attributes: [CoreDataAttribute]
    /// The relationships the entity declares itself.
    public var relationships: [CoreDataRelationship]

    /// An entity described field by field.
    public init(name: String, parent: String? = nil, isAbstract: Bool = false,
                attributes: [CoreDataAttribute] = [], relationships: [CoreDataRelationship] = []) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// An attribute of a Core Data entity.
public struct CoreDataAttribute: Sendable, Hashable {
    /// The attribute's name (`creationDate`).
    public var name: String
    /// Its type.
    public var type: AttributeType
    /// True for a transient attribute (not stored: it has no column).
    public var isTransient: Bool
    /// True for a derived attribute (kept by the store's triggers).
    public var isDerived: Bool

    /// An attribute described field by field.
    public init(name: String, type: AttributeType, isTransient: Bool = false, isDerived: Bool = false) {
        self.name = name
        self.type = type
        self.isTransient = isTransient
        self.isDerived = isDerived
    }

    /// Core Data's attribute types, by `NSAttributeType`'s numbers.
    public enum AttributeType: Sendable, Hashable {
        /// `NSUndefinedAttributeType` (0): only transient attributes have it.
        case undefined
        case integer16, integer32, integer64, decimal, double, float, string, boolean, date
        case binary, uuid, uri, transformable, objectID, composite
        /// A type this reader does not know (a newer framework's), by its number.
        case unknown(Int)

        /// The type of `NSAttributeType` number `code` (100 = Integer 16 … 2100 = Composite).
        public init(code: Int) {
            switch code {
            case 0: self = .undefined
            case 100: self = .integer16
            case 200: self = .integer32
            case 300: self = .integer64
            case 400: self = .decimal
            case 500: self = .double
            case 600: self = .float
            case 700: self = .string
            case 800: self = .boolean
            case 900: self = .date
            case 1000: self = .binary
            case 1100: self = .uuid
            case 1200: self = .uri
            case 1800: self = .transformable
            case 2000: self = .objectID
            case 2100: self = .composite
            default: self = .unknown(code)
            }
        }

        /// The type named `name` in an Xcode model file (`Integer 16`, `Date`, `UUID`, …).
        public init(xcodeName name: String) {
            switch name {
            case "Undefined": self = .undefined
            case "Integer 16": self = .integer16
            case "Integer 32": self = .integer32
            case "Integer 64": self = .integer64
            case "Decimal": self = .decimal
            case "Double": self = .double
            case "Float": self = .float
            case "String": self = .string
            case "Boolean": self = .boolean
            case "Date": self = .date
            case "Binary": self = .binary
            case "UUID": self = .uuid
            case "URI": self = .uri
            case "Transformable": self = .transformable
            case "ObjectID": self = .objectID
            case "Composite": self = .composite
            default: self = .unknown(-1)
            }
        }

        /// The name Xcode gives the type (`Integer 16`, `Date`, …).
        public var displayName: String {
            switch self {
            case .undefined: "Undefined"
            case .integer16: "Integer 16"
            case .integer32: "Integer 32"
            case .integer64: "Integer 64"
            case .decimal: "Decimal"
            case .double: "Double"
            case .float: "Float"
            case .string: "String"
            case .boolean: "Boolean"
            case .date: "Date"
            case .binary: "Binary"
            case .uuid: "UUID"
            case .uri: "URI"
            case .transformable: "Transformable"
            case .objectID: "ObjectID"
            case .composite: "Composite"
            case .unknown(let code): "unknown type \(code)"
            }
        }
    }
}

/// A relationship of a Core Data entity.
public struct CoreDataRelationship: Sendable, Hashable {
    /// The relationship's name (`folder`, `notes`).
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name (declared on the destination), nil when there is none.
    public var inverse: String?
    /// True for a to-many relationship.
    public var isToMany: Bool
    /// True for an ordered to-many relationship (an `NSOrderedSet`).
    public var isOrdered: Bool
    /// True for a transient relationship (not stored).
    public var isTransient: Bool
    /// What deleting a row does to the rows this relationship reaches.
    public var deleteRule: DeleteRule

    /// A relationship described field by field.
    public init(name: String, destination: String, inverse: String?, isToMany: Bool,
                isOrdered: Bool = false, isTransient: Bool = false, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isTransient = isTransient
        self.deleteRule = deleteRule
    }

    /// Core Data's delete rules, by `NSDeleteRule`'s numbers.
    public enum DeleteRule: Sendable, Hashable {
        /// `NSNoActionDeleteRule` (0): the rows reached keep pointing at the deleted row.
        case noAction
        /// `NSNullifyDeleteRule` (1, the default): their links to the deleted row are cleared.
        case nullify
        /// `NSCascadeDeleteRule` (2): they are deleted too.
        case cascade
        /// `NSDenyDeleteRule` (3): the delete is refused while there are any.
        case deny
        /// A rule this reader does not know (a newer framework's), by its number or name.
        case unknown(String)

        /// The rule of `NSDeleteRule` number `code`.
        public init(code: Int) {
            switch code {
            case 0: self = .noAction
            case 1: self = .nullify
            case 2: self = .cascade
            case 3: self = .deny
            default: self = .unknown(String(code))
            }
        }

        /// The rule named `name` in an Xcode model file (`deletionRule="Cascade"`).
        public init(xcodeName name: String) {
            switch name {
            case "No Action": self = .noAction
            case "Nullify": self = .nullify
            case "Cascade": self = .cascade
            case "Deny": self = .deny
            default: self = .unknown(name)
            }
        }
    }
}
