/// SQLite's column affinities (`nil` where an affinity is expected means "no affinity", as for an
/// expression or a literal).
public enum Affinity: Sendable, Hashable {
    case integer, real, numeric, text, blob

    /// INTEGER, REAL and NUMERIC affinity convert number-like text in comparisons.
    var isNumeric: Bool { self == .integer || self == .real || self == .numeric }
}

/// An entity instance the evaluator can run a predicate on: rows in memory, or rows loaded from
/// SQLite (the compiler's differential test implements this over its own rows).
///
/// Names are resolved by the implementation (ours: exact, then case-insensitive, as the SQL
/// compiler does). Each lookup returns `nil` when the object has no member of that name, so the
/// evaluator can try attribute, then to-one, then to-many, and report an unknown name.
public protocol EvaluationObject {
    /// The primary id: what `SELF` means, and what a to-one relationship compares as.
    var id: Value { get }
    /// The attribute's value, or `nil` when there is no such attribute.
    func attribute(_ name: String) -> Value?
    /// The attribute's affinity (from its declared type, by SQLite's rules).
    func affinity(of name: String) -> Affinity?
    /// `.some(nil)` when the to-one relationship exists but points nowhere; `nil` when there is
    /// no such relationship.
    func toOne(_ name: String) -> (any EvaluationObject)??
    /// The related objects (any order; the evaluator orders them by id), or `nil` when there is
    /// no such relationship.
    func toMany(_ name: String) -> [any EvaluationObject]?
    /// Every attribute and relationship name, for "did you mean …?".
    var memberNames: [String] { get }
}

extension EvaluationObject {
    /// No names by default (errors then suggest nothing).
    public var memberNames: [String] { [] }
}

/// A simple object in memory: attributes, affinities and relationships held in dictionaries.
public struct MemoryObject: EvaluationObject, Sendable, Hashable {
    /// The primary id.
    public var id: Value
    /// The attributes' values by name.
    public var attributes: [String: Value]
    /// The attributes' affinities by name (none: compared as their values are).
    public var affinities: [String: Affinity]
    /// The to-one relationships by name; a nil value points nowhere.
    public var toOneRelationships: [String: MemoryObject?]
    /// The to-many relationships by name.
    public var toManyRelationships: [String: [MemoryObject]]

    /// An object with this id, attributes and relationships.
    public init(id: Value, attributes: [String: Value] = [:], affinities: [String: Affinity] = [:],
                toOne: [String: MemoryObject?] = [:], toMany: [String: [MemoryObject]] = [:]) {
        self.id = id
        self.attributes = attributes
        self.affinities = affinities
        self.toOneRelationships = toOne
        self.toManyRelationships = toMany
    }

    /// Exact name first, then case-insensitive (the SQL compiler resolves names that way too).
    private func resolve<T>(_ name: String, in dictionary: [String: T]) -> T? {
        if let exact = dictionary[name] { return exact }
        let lower = name.lowercased()
        return dictionary.first { $0.key.lowercased() == lower }?.value
    }

    /// The attribute's value (exact name, then case-insensitive), or nil.
    public func attribute(_ name: String) -> Value? { resolve(name, in: attributes) }

    /// The attribute's affinity, or nil.
    public func affinity(of name: String) -> Affinity? { resolve(name, in: affinities) }

    /// The related object, `.some(nil)` when the relationship points nowhere, nil when there is no such relationship.
    public func toOne(_ name: String) -> (any EvaluationObject)?? {
        guard let related = resolve(name, in: toOneRelationships) else { return nil }
        return .some(related.map { $0 as any EvaluationObject })
    }

    /// The related objects, or nil when there is no such relationship.
    public func toMany(_ name: String) -> [any EvaluationObject]? {
        resolve(name, in: toManyRelationships).map { $0.map { $0 as any EvaluationObject } }
    }

    /// Every attribute and relationship name.
    public var memberNames: [String] {
        Array(attributes.keys) + Array(toOneRelationships.keys) + Array(toManyRelationships.keys)
    }
}
