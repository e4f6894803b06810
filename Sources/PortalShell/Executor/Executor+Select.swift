import PortalEngine

// `find E select …`, `first E select …`, `count E … group by …` and `export … select …`: the
// selection is compiled by the engine into one statement; a mistake is shown with a caret in the
// part of the command it is in.

extension Executor {
    func compile(_ query: Query, _ clause: SelectionClause, entity: EntityDescription,
                 limitOne: Bool) throws -> CompiledQuery {
        let database = try requireDatabase()
        let filter = try filter(query.predicate, entity: entity)
        let selection = Selection(clause.items.map { SelectionItem($0.expression.text, as: $0.name) },
                                  distinct: clause.distinct, groupBy: clause.groupBy.map(\.text), having: clause.having?.text)
        let keys = query.sort.map(\.value) + (filter?.sort ?? [])
        let compiled: CompiledSelection
        do {
            compiled = try PredicateCompiler.compile(selection, sortedBy: keys, variables: predicateVariables, entity: entity,
                                                     schema: database.schema, alias: Self.alias, dialect: database.store.dialect)
        } catch {
            guard let part = error.selectionPart else { throw ShellError.from(error) }
            let (text, offset) = located(part, clause, query)
            throw ShellError.from(error, in: text, offset: offset)
        }
        let limit = limitOne ? 1 : try query.limit.map(count)
        let select = Select.find(entity, alias: Self.alias, selection: compiled, filter: filter, limit: limit,
                                 offset: try query.offset.map(count))
        return CompiledQuery(select.rendered(in: database.store.dialect))
    }

    /// The text of the part of the command a selection error is in, and where it starts.
    private func located(_ part: SelectionPart, _ clause: SelectionClause, _ query: Query) -> (String, Int) {
        switch part {
        case .item(let index): return (clause.items[index].expression.text, clause.items[index].expression.offset)
        case .groupKey(let index): return (clause.groupBy[index].text, clause.groupBy[index].offset)
        case .having: return (clause.having?.text ?? "", clause.having?.offset ?? 0)
        case .sortKey(let index) where index < query.sort.count:
            return (query.sort[index].value.keyPath, query.sort[index].range.lowerBound)
        case .sortKey: return (query.predicate?.text ?? "", query.predicate?.offset ?? 0)
        }
    }
}
