import PortalPredicate

// INTERFACE between the engine (Store, contexts) and the SQL compiler. The compiler's owner
// replaces the bodies; the engine calls only these.

/// A piece of SQL text with the values bound to its `?` parameters, in order.
public struct SQLFragment: Sendable, Hashable {
    public var sql: String
    public var bindings: [Value]
    public init(_ sql: String, _ bindings: [Value] = []) {
        self.sql = sql
        self.bindings = bindings
    }
}

/// One key of a sort: an attribute or to-one key path (`"Album.Title"`), ascending or not.
public struct SortKey: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool
    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// A predicate compiled for one entity: the WHERE condition, and the ORDER BY and LIMIT that
/// Realm's trailing `SORT(…)`/`LIMIT(…)` clauses asked for, if any.
public struct CompiledFilter: Sendable, Hashable {
    /// A boolean SQL expression over the entity's table, referenced by the alias given to `compile`.
    public var condition: SQLFragment
    public var sort: [SortKey]
    public var limit: Int?
}

/// Compiles predicate text and sort keys against the schema. The SQL refers to the entity's
/// table through `alias` (e.g. `SELECT … FROM "Track" AS t0 WHERE <condition>`).
public enum PredicateCompiler {
    public static func compile(_ predicate: String, arguments: [Argument] = [], variables: [String: Argument] = [:],
                               entity: EntityDescription, schema: Schema, alias: String) throws -> CompiledFilter {
        throw PredicateError(.unsupported, "the SQL compiler is not built yet")
    }

    /// The ORDER BY list (without the keywords) for these keys; to-one paths allowed.
    public static func orderBy(_ keys: [SortKey], entity: EntityDescription, schema: Schema,
                               alias: String) throws -> SQLFragment {
        throw PredicateError(.unsupported, "the SQL compiler is not built yet")
    }
}
