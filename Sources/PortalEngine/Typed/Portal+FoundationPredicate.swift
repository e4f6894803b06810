import Foundation
import PortalPredicate

// Foundation's `Predicate` and `SortDescriptor` beside the predicate text, on portals and contexts:
//
//     let long = try hikes.findAll(where: #Predicate<Hike> { $0.km > 10 && $0.trail.starts(with: "Co") },
//                                  sortedBy: [SortDescriptor(\Hike.km, order: .reverse)], limit: 10)
//
// The predicate is translated into the engine's tree before the read begins (an expression
// with no meaning on a database fails there, named), then compiled like predicate text; a
// predicate of a shape compiled lately only has its values bound (`CompiledPredicateCache`).

extension Portal {
    /// How many entities match `predicate`.
    public func count(where predicate: Predicate<Entity>) throws -> Int {
        let prepared = try PreparedPredicate(predicate)
        return try store.read { ctx in try ctx.count(Entity.self, matching: prepared) }
    }

    /// The entities matching `predicate` (all when nil), sorted by `sortedBy` and at most `limit` of them.
    public func findAll(where predicate: Predicate<Entity>? = nil, sortedBy: [SortDescriptor<Entity>],
                        limit: Int? = nil) throws -> [Entity] {
        let (prepared, sort) = try (predicate.map { try PreparedPredicate($0) }, FoundationPredicates.sortKeys(sortedBy))
        return try store.read { ctx in try ctx.fetch(Entity.self, matching: prepared, sortedBy: sort, limit: limit, offset: nil) }
    }

    /// The entities matching `predicate`, at most `limit` of them.
    public func findAll(where predicate: Predicate<Entity>, limit: Int? = nil) throws -> [Entity] {
        try findAll(where: predicate, sortedBy: [], limit: limit)
    }

    /// The first entity matching `predicate` in the order of `sortedBy`, or nil when none does.
    public func findFirst(where predicate: Predicate<Entity>, sortedBy: [SortDescriptor<Entity>] = []) throws -> Entity? {
        try findAll(where: predicate, sortedBy: sortedBy, limit: 1).first
    }

    /// Deletes the entities matching `predicate`; returns how many.
    @discardableResult
    public func deleteAll(where predicate: Predicate<Entity>) throws -> Int {
        let prepared = try PreparedPredicate(predicate)
        return try store.write { ctx in
            try ctx.delete(Entity.entityName, where: .condition(ctx.condition(Entity.self, matching: prepared))).matched
        }
    }

    /// The matching entities as an `AsyncSequence` read one at a time (see `cursor(where:_:sortedBy:limit:)`).
    public func cursor(where predicate: Predicate<Entity>? = nil, sortedBy: [SortDescriptor<Entity>] = [],
                       limit: Int? = nil) throws -> EntityCursor<Entity> {
        let (prepared, sort) = try (predicate.map { try PreparedPredicate($0) }, FoundationPredicates.sortKeys(sortedBy))
        return EntityCursor(store: store, filter: .foundation(prepared), sortedBy: sort, limit: limit)
    }
}

extension ReadContext {
    /// The entities of type `T` matching `predicate`, sorted, at most `limit` after skipping `offset`.
    public func fetch<T: PortalEntity>(_ type: T.Type, where predicate: Predicate<T>?, sortedBy: [SortDescriptor<T>] = [],
                                      limit: Int? = nil, offset: Int? = nil) throws -> [T] {
        let prepared = try predicate.map { try PreparedPredicate($0) }
        return try fetch(T.self, matching: prepared, sortedBy: FoundationPredicates.sortKeys(sortedBy), limit: limit,
                         offset: offset)
    }

    /// How many entities of type `T` match `predicate`.
    public func count<T: PortalEntity>(_ type: T.Type, where predicate: Predicate<T>) throws -> Int {
        try count(T.self, matching: PreparedPredicate(predicate))
    }

    /// The SQL and bound values `fetch` runs for `predicate` (what `explain` shows for text).
    public func selectStatement<T: PortalEntity>(_ type: T.Type, where predicate: Predicate<T>,
                                                sortedBy: [SortDescriptor<T>] = [], limit: Int? = nil) throws -> SQLFragment {
        try select(T.self, matching: PreparedPredicate(predicate), .typed(T.self), FoundationPredicates.sortKeys(sortedBy), limit,
                   nil)
    }

    func fetch<T: PortalEntity>(_ type: T.Type, matching predicate: PreparedPredicate<T>?, sortedBy: [SortKey], limit: Int?,
                                offset: Int?) throws -> [T] {
        try fetch(T.self, select(T.self, matching: predicate, .typed(T.self), sortedBy, limit, offset))
    }

    func count<T: PortalEntity>(_ type: T.Type, matching predicate: PreparedPredicate<T>) throws -> Int {
        let fragment = try select(T.self, matching: predicate, .count, [], nil, nil)
        return try withContext(T.entityName) {
            guard case .integer(let n)? = try connection.scalar(fragment.sql, fragment.bindings) else { return 0 }
            return Int(n)
        }
    }

    /// The SELECT of `T`'s rows that `predicate` matches (all when nil).
    func select<T: PortalEntity>(_ type: T.Type, matching predicate: PreparedPredicate<T>?, _ projection: Projection,
                                 _ sortedBy: [SortKey], _ limit: Int?, _ offset: Int?) throws -> SQLFragment {
        let dialect = store.dialect
        let filter = predicate.map { predicate in
            { (entity: EntityDescription, schema: Schema) in
                try FoundationPredicates.filter(predicate, entity: entity, schema: schema, alias: "t0", dialect: dialect)
            }
        }
        return try select(T.entityName, projection, filter: filter, sortedBy, limit, offset)
    }

    /// The WHERE condition over `t0` of `T`'s rows that `predicate` matches.
    func condition<T: PortalEntity>(_ type: T.Type, matching predicate: PreparedPredicate<T>) throws -> SQLFragment {
        let schema = try self.schema
        let entity = try self.entity(named: T.entityName)
        return try compiling(entity.name) {
            try FoundationPredicates.filter(predicate, entity: entity, schema: schema, alias: "t0", dialect: store.dialect).condition
        }
    }
}
