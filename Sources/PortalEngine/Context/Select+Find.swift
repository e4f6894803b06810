import PortalPredicate

// The select of a find or a count, assembled in one place: the engine's `find`, `first`,
// `count`, `forEach`, projections and typed reads, and the shell's find, first, count, get,
// entities, `select` and explain all come here, so that what a command runs and what `explain` shows is the engine's.

extension Select {
    /// The select of `entity`'s rows that `filter` keeps (all rows without one): `columns` of
    /// each (`.count` for their number), sorted by `sortedBy` and then by the filter's `SORT`
    /// keys, at most `limit` of them (or the filter's `LIMIT`, when lower) after skipping
    /// `offset`. A caller whose own keys replace the predicate's clears `filter.sort`.
    ///
    /// A `SELF` key sorts by the primary id; the other keys are compiled against `schema`, whose
    /// errors (an unknown attribute) are the compiler's `PortalPredicateError`. A count is not
    /// sorted unless a limit or offset picks its rows by the order.
    public static func find(_ entity: EntityDescription, in schema: Schema, dialect: any SQLDialect,
                            alias: String = "t0", columns: Columns, filter: CompiledFilter? = nil,
                            sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) throws -> Select {
        let keys = sortedBy + (filter?.sort ?? [])
        let limit = [limit, filter?.limit].compactMap { $0 }.min()
        let counted = if case .count = columns { limit == nil && offset == nil } else { false }
        let order = keys.isEmpty || counted ? nil : try orderBy(keys, entity: entity, schema: schema, alias: alias, dialect: dialect)
        return Select(entity, alias: alias, columns: columns, condition: filter?.condition, order: order, limit: limit,
                      offset: offset)
    }

    /// The select of a projection of `entity`'s rows that `filter` keeps: `selection`'s items,
    /// groups, HAVING and order (its sort keys compiled with it, the filter's `SORT` among them
    /// when the caller wants it), at most `limit` rows (or the filter's `LIMIT`, when lower)
    /// after skipping `offset`.
    public static func find(_ entity: EntityDescription, alias: String = "t0", selection: CompiledSelection,
                            filter: CompiledFilter? = nil, limit: Int? = nil, offset: Int? = nil) -> Select {
        var select = Select(entity, alias: alias, columns: .expressions(selection.columns), condition: filter?.condition,
                            order: selection.order, limit: [limit, filter?.limit].compactMap { $0 }.min(), offset: offset)
        select.distinct = selection.distinct
        select.groupBy = selection.groupBy
        select.having = selection.having
        return select
    }

    /// ORDER BY for the keys: `SELF` by the primary id (rowid or declared key), for keyset
    /// paging; the others as the predicate compiler sorts them (NULL first, as SQLite sorts, on
    /// every database).
    private static func orderBy(_ keys: [SortKey], entity: EntityDescription, schema: Schema, alias: String,
                                dialect: any SQLDialect) throws -> SQLFragment {
        var parts: [SQLFragment] = []
        for key in keys {
            if key.keyPath.uppercased() == "SELF" {
                let direction = key.ascending ? "" : " DESC"
                let columns = entity.identifyingColumns.map {
                    "\(alias).\($0 == dialect.rowidColumn ? $0 : dialect.quoted($0))\(direction)"
                }
                guard !columns.isEmpty else {
                    throw PortalError(.misuse, "\(entity.name) has no primary id to sort by", entity: entity.name)
                }
                parts.append(SQLFragment(columns.joined(separator: ", ")))
            } else {
                parts.append(try PredicateCompiler.orderBy([key], entity: entity, schema: schema, alias: alias, dialect: dialect))
            }
        }
        return SQLFragment.joined(parts, separator: ", ")
    }
}
