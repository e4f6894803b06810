import PortalPredicate

// Projections: chosen columns, expressions and aggregates, grouped (`Selection`), as rows, as a
// stream of rows, or decoded into a struct whose properties are the columns' names.

extension ReadContext {
    /// The rows of `selection` over `entity`'s rows matching the predicate: one row per entity,
    /// or per group with `groupBy` or aggregates. `sortedBy` keys may name the selection's items.
    public func find(_ entity: String, select selection: Selection, where predicate: String? = nil,
                     _ arguments: [any ArgumentConvertible] = [], sortedBy: [SortKey] = [], limit: Int? = nil,
                     offset: Int? = nil) throws -> [Row] {
        let fragment = try selectionSQL(entity, selection, predicate, arguments, sortedBy, limit, offset)
        return try withContext(entity) { try query(fragment.sql, fragment.bindings).rows }
    }

    /// Streams the rows of a projection one at a time, in bounded memory; returns the column names.
    @discardableResult
    public func forEach(_ entity: String, select selection: Selection, where predicate: String? = nil,
                        _ arguments: [any ArgumentConvertible] = [], sortedBy: [SortKey] = [], limit: Int? = nil,
                        offset: Int? = nil, _ body: (Row) throws -> Void) throws -> [String] {
        let fragment = try selectionSQL(entity, selection, predicate, arguments, sortedBy, limit, offset)
        return try withContext(entity) { try stream(fragment.sql, fragment.bindings, body) }
    }

    /// A projection decoded as `T`, whose properties are the columns' names (`as` names).
    public func fetch<T: Decodable>(_ type: T.Type, from entity: String, select selection: Selection,
                                    where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                                    sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) throws -> [T] {
        let fragment = try selectionSQL(entity, selection, predicate, arguments, sortedBy, limit, offset)
        return try fetch(T.self, sql: fragment.sql, arguments: fragment.bindings)
    }

    /// The one statement of a projection, rendered by the store's dialect.
    public func selectionSQL(_ entityName: String, _ selection: Selection, _ predicate: String?,
                             _ arguments: [any ArgumentConvertible], _ sortedBy: [SortKey], _ limit: Int?,
                             _ offset: Int?) throws -> SQLFragment {
        try checkValid()
        let schema = try self.schema
        let entity = try self.entity(named: entityName)
        let filter = try predicate.map { text in
            try compiling(entity.name) {
                try PredicateCompiler.compile(text, arguments: arguments.map(\.predicateArgument), entity: entity,
                                              schema: schema, alias: "t0", dialect: store.dialect)
            }
        }
        // The caller's own keys replace the predicate's `SORT`.
        let keys = sortedBy.isEmpty ? filter?.sort ?? [] : sortedBy
        let compiled = try PredicateCompiler.compile(selection, sortedBy: keys, entity: entity, schema: schema,
                                                     alias: "t0", dialect: store.dialect)
        let select = Select.find(entity, selection: compiled, filter: filter, limit: limit, offset: offset)
        return select.rendered(in: store.dialect)
    }
}
