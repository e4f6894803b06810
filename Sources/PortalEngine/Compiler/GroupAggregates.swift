import PortalPredicate

// Aggregates over the rows of a group (`select Country, sum(Total) … group by Country`), as
// opposed to aggregates over one entity's to-many relationship (`sum(tracks.Milliseconds)`),
// which AggregateCompiler makes into correlated subqueries. The argument decides: a value of the
// row is aggregated over rows; a to-many key path or a list, per entity.

enum GroupAggregate {
    /// `count(distinct X)` as the selection compiler rewrites it for the parser (same length).
    static let countDistinct = "countdistinct"
}

extension SQLCompiler {
    /// `count()`: the rows of the group.
    func countRows() throws -> Operand {
        try requireGroup("count")
        sawGroupAggregate = true
        return .scalar(SQLFragment("count(*)"), .computed)
    }

    /// The SQL aggregate of `argument` over the group's rows, or nil when `argument` is a to-many
    /// key path or a list (an aggregate per entity).
    func groupAggregate(_ aggregate: String, _ name: String, _ argument: ExpressionTree, in scope: Scope) throws -> Operand? {
        if try isPerEntity(argument, in: scope) { return nil }
        try requireGroup(name == GroupAggregate.countDistinct ? "count" : name)
        let saved = groupAggregates
        groupAggregates = false   // no aggregate inside an aggregate
        defer { groupAggregates = saved }
        let value = try operand(argument, in: scope)
        let sql: SQLFragment
        var info = ScalarInfo.computed
        switch value {
        case .scalar(let valueSQL, let valueInfo):
            sql = valueSQL
            info = valueInfo
        case .date(let seconds):
            sql = .bound(.real(seconds))
        default:
            throw PortalPredicateError(.invalidOperation, "\(name)() needs one value per row, not \(value.kindDescription)")
        }
        if aggregate == "@sum" || aggregate == "@avg", info.affinity == .text || info.textFunction != nil {
            failingToken = name
            throw PortalPredicateError(.invalidOperation, "\(name)() needs numbers, not text")
        }
        sawGroupAggregate = true
        let function = Self.aggregateFunctions[aggregate] ?? "count"
        let distinct = name == GroupAggregate.countDistinct ? "DISTINCT " : ""
        var result = ScalarInfo.computed
        if aggregate == "@min" || aggregate == "@max" { result.attribute = info.attribute }
        return .scalar(.raw(function + "(" + distinct) + sql + ")", result)
    }

    /// True when `argument` ranges over a to-many relationship (`tracks.Milliseconds`, `tracks`)
    /// or is a list: the aggregate is then one entity's, not the group's.
    private func isPerEntity(_ argument: ExpressionTree, in scope: Scope) throws -> Bool {
        if case .aggregate = argument { return true }
        let (root, parts) = flatten(argument)
        guard case .self = root, !parts.isEmpty, parts.allSatisfy(\.isName) else { return false }
        let saved = collection
        collection = nil
        defer { collection = saved }
        let names = names(parts[...])
        if names.count == 1, selectionNames[names[names.startIndex].lowercased()] != nil { return false }
        switch try walk(scope, names) {
        case .toMany: return true
        default: return collection != nil
        }
    }

    /// Outside a selection, an aggregate over rows has no group to range over.
    private func requireGroup(_ name: String) throws {
        guard groupAggregates else {
            failingToken = name
            throw PortalPredicateError(.invalidOperation,
                                 "\(name)() over rows belongs in 'having' (or in 'select'), not in a filter: "
                                     + "a filter tests one row at a time")
        }
    }
}
