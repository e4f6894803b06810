import Foundation
import PortalPredicate

// Foundation's `#Predicate` and `SortDescriptor` on typed portals. A `Predicate<T>` is a tree of
// `PredicateExpressions` values; `FoundationPredicateTranslator` walks it into the engine's own
// `PredicateTree`, which the one predicate compiler turns into SQL. Nothing is evaluated in
// Swift: key paths become attribute and relationship names, captured values become literals
// (bound as parameters by the compiler).

extension PortalEntity {
    /// The name in the schema of each property a `#Predicate` or `SortDescriptor` may name whose
    /// own name is not that of its attribute or relationship (names match case-insensitively):
    /// the coding key of an attribute stored under another name, and every relationship declared
    /// as a computed property. Default: none, each property stands for its namesake.
    public static var predicateKeys: [PartialKeyPath<Self>: String] { [:] }
}

/// The entity type of a key path's value, through optionals: a to-one relationship's target.
protocol OptionalPredicateType { static var wrappedPredicateType: Any.Type { get } }
extension Optional: OptionalPredicateType { static var wrappedPredicateType: Any.Type { Wrapped.self } }

/// The element type of an array: a to-many relationship's target.
protocol ArrayPredicateType { static var elementPredicateType: Any.Type { get } }
extension Array: ArrayPredicateType { static var elementPredicateType: Any.Type { Element.self } }

/// An optional value seen through `Any`.
protocol OptionalPredicateValue { var wrappedPredicateValue: Any? { get } }
extension Optional: OptionalPredicateValue {
    var wrappedPredicateValue: Any? { self.map { $0 as Any } }
}

enum PredicateTypes {
    /// `T` without its optionals.
    static func unwrapped(_ type: Any.Type) -> Any.Type {
        var type = type
        while let optional = type as? any OptionalPredicateType.Type { type = optional.wrappedPredicateType }
        return type
    }

    /// The entity type `type` names, through optionals; nil for an attribute's type.
    static func entity(_ type: Any.Type) -> (any PortalEntity.Type)? { unwrapped(type) as? any PortalEntity.Type }

    /// The element entity type of an array of entities (a to-many relationship).
    static func elementEntity(_ type: Any.Type) -> (any PortalEntity.Type)? {
        (unwrapped(type) as? any ArrayPredicateType.Type).flatMap { entity($0.elementPredicateType) }
    }

    /// The name of the attribute or relationship a key path of `root` stands for.
    static func name(of keyPath: AnyKeyPath, in root: Any.Type) -> String? {
        if let entity = entity(root), let declared = declaredName(of: keyPath, in: entity) { return declared }
        // A stored property's key path describes itself as `\Type.name` (`\Type.a?.b` for a chain).
        let description = keyPath.debugDescription
        guard !description.contains("<computed") else { return nil }
        // The root's name may hold dots of its own (a nested type): drop it whole when it is
        // there, else keep the last property only.
        let rootPrefix = "\\" + String(describing: root) + "."
        let path = description.hasPrefix(rootPrefix) ? Substring(description.dropFirst(rootPrefix.count))
            : description.split(separator: ".").last ?? ""
        let names = path.split(separator: ".").map { String($0.filter { $0 != "?" && $0 != "!" }) }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else { return nil }
        return names.joined(separator: ".")
    }

    private static func declaredName<E: PortalEntity>(of keyPath: AnyKeyPath, in entity: E.Type) -> String? {
        guard let typed = keyPath as? PartialKeyPath<E> else { return nil }
        return E.predicateKeys[typed]
    }
}

/// Translates Foundation predicates and sort descriptors for entity type `Entity`.
public enum FoundationPredicates {
    /// The engine's predicate tree for a Foundation `Predicate`; an expression with no meaning
    /// on a database is refused with an error that names it.
    public static func tree<Entity: PortalEntity>(_ predicate: Predicate<Entity>) throws -> PredicateTree {
        try translation(predicate).tree
    }

    /// The tree, with `substitutes` standing for captured values (by their order), and how many
    /// captured values translation met.
    static func translation<Entity: PortalEntity>(_ predicate: Predicate<Entity>,
                                                  substitutes: [Int: Any] = [:]) throws -> (tree: PredicateTree, captured: Int) {
        var translator = FoundationPredicateTranslator()
        translator.substitutes = substitutes
        let variable = predicate.variable
        translator.bind(variable.key, to: .row(prefix: nil, type: .type(Entity.self)))
        let tree = try translator.predicate(translator.translate(predicate.expression))
        return (tree, translator.capturedCount)
    }

    /// The filter of `predicate` over `entity` (its rows under `alias`), as `PredicateCompiler`
    /// compiles its tree: compiled once per shape of predicate, then only its values are bound
    /// anew (`CompiledPredicateCache`).
    public static func filter<Entity: PortalEntity>(_ predicate: Predicate<Entity>, entity: EntityDescription, schema: Schema,
                                                    alias: String, dialect: any SQLDialect) throws -> CompiledFilter {
        try filter(PreparedPredicate(predicate, translating: false), entity: entity, schema: schema, alias: alias, dialect: dialect)
    }

    static func filter<Entity: PortalEntity>(_ prepared: PreparedPredicate<Entity>, entity: EntityDescription, schema: Schema,
                                             alias: String, dialect: any SQLDialect) throws -> CompiledFilter {
        func compile(_ tree: PredicateTree) throws -> CompiledFilter {
            try PredicateCompiler.compile(Query(predicate: tree), entity: entity, schema: schema, alias: alias, dialect: dialect)
        }
        guard let captures = prepared.captures, let key = prepared.key else {
            return try compile(prepared.translation?.tree ?? tree(prepared.predicate))
        }
        if let cached = CompiledPredicateCache.filter(key, captures.values, entity: entity, schema: schema, alias: alias,
                                                      dialect: dialect) {
            return cached
        }
        let (tree, captured) = try prepared.translation ?? translation(prepared.predicate)
        let compiled = try compile(tree)
        // Translation meets the values in the order they were captured; should it not, no
        // value is known by its place.
        guard captured == captures.values.count, !CompiledPredicateCache.isFull(key) else { return compiled }
        let shape = CompiledPredicateCache.shape(captures, compiled: compiled, entity: entity, schema: schema, alias: alias,
                                                 dialect: dialect) { substitutes in
            try compile(translation(prepared.predicate, substitutes: substitutes).tree)
        }
        if let shape { CompiledPredicateCache.keep(key, shape) }
        return compiled
    }

    /// The sort keys of Foundation sort descriptors: each names an attribute or a to-one key path.
    public static func sortKeys<Entity: PortalEntity>(_ descriptors: [SortDescriptor<Entity>]) throws -> [SortKey] {
        try descriptors.map { descriptor in
            guard let keyPath = descriptor.keyPath, let name = PredicateTypes.name(of: keyPath, in: Entity.self) else {
                throw PortalError(.predicate, "a SortDescriptor of \(Entity.entityName) must sort by a key path of a stored "
                                  + "property (or one declared in predicateKeys)", entity: Entity.entityName)
            }
            return SortKey(name, ascending: descriptor.order == .forward)
        }
    }

    /// The predicate's translation, its errors as the engine reports predicate errors.
    static func translated<Entity: PortalEntity>(_ predicate: Predicate<Entity>) throws -> (tree: PredicateTree, captured: Int) {
        do {
            return try translation(predicate)
        } catch let error as PortalPredicateError {
            throw PortalError.invalidPredicate(error, entity: Entity.entityName)
        }
    }
}

/// A Foundation predicate made ready before a read: its captures read and, unless a kept
/// compilation admits them (translation then succeeds), translated, so that an expression with
/// no meaning on a database fails at the call.
struct PreparedPredicate<Entity: PortalEntity>: @unchecked Sendable {
    // Unchecked: the captured values are those of the predicate, which is Sendable.
    let predicate: Predicate<Entity>
    let captures: PredicateCaptures?
    let key: CompiledPredicateCache.Key?
    let translation: (tree: PredicateTree, captured: Int)?

    init(_ predicate: Predicate<Entity>, translating: Bool = true) throws {
        self.predicate = predicate
        captures = PredicateCaptures.of(predicate)
        key = captures.map { CompiledPredicateCache.key(predicate.expression, $0) }
        if let key, let captures, !translating || CompiledPredicateCache.knows(key, captures.values) {
            translation = nil
        } else {
            translation = try FoundationPredicates.translated(predicate)
        }
    }
}
