import PortalPredicate

// Aggregates over to-many key paths (`@count`, `@sum`, …, `sum(…)`, SUBQUERY(…).@count) compile
// to correlated subqueries; they are scalars, independent of any quantifier around them.

extension SQLCompiler {
    /// `prefix.@function.suffix` or `prefix.@function`, where `prefix` reaches a to-many relationship
    /// (or an attribute through one) and `suffix` names the aggregated attribute of its elements.
    func aggregate(_ function: String, in scope: Scope, over prefix: ArraySlice<String>,
                   then suffix: ArraySlice<String>) throws -> Operand {
        guard let sqlFunction = Self.aggregateFunctions[function] else {
            throw PortalPredicateError(.unknownName, "no aggregate named \(function)",
                                 suggestion: closestName(to: function, among: Array(Self.aggregateFunctions.keys)))
        }
        let saved = collection
        collection = nil
        defer { collection = saved }

        var value: Operand?
        let end = prefix.isEmpty ? KeyPathEnd.row(scope) : try walk(scope, prefix)
        switch end {
        case .attribute(let owner, let attribute) where suffix.isEmpty && collection == nil && holdsCollection(attribute):
            value = try enterCollection(attribute, of: owner)   // `tags.@count`
        case .toMany(let owner, let relationship):
            let element = try enter(relationship, from: owner)
            if !suffix.isEmpty { value = try keyPath(root: element, suffix) }
        case .attribute where collection != nil && suffix.isEmpty:
            value = try operand(for: end)   // `tracks.Milliseconds.@sum`
        default:
            failingToken = function
            throw PortalPredicateError(.invalidOperation,
                                 "\(function) needs a to-many relationship ('\(prefix.joined(separator: "."))' is not one)")
        }
        guard let rows = collection else {
            throw PortalPredicateError(.invalidOperation, "\(function) needs a to-many relationship")
        }
        return try aggregateSQL(function, sqlFunction, value, rows)
    }

    private func aggregateSQL(_ function: String, _ sqlFunction: String, _ value: Operand?,
                              _ rows: Collection) throws -> Operand {
        if function == "@count" {
            return .scalar("(SELECT COUNT(*)" + rows.fromWhere() + ")", .computed)
        }
        guard case .scalar(let sql, let info) = value else {
            throw PortalPredicateError(.invalidOperation, "\(function) needs an attribute of the related entity after it")
        }
        if function == "@sum" || function == "@avg", info.affinity == .text {
            failingToken = function
            throw PortalPredicateError(.invalidOperation,
                                 "\(function) cannot apply to the text attribute '\(info.attribute?.name ?? "")'")
        }
        // NSArray's @sum of no elements is 0; the others have no value then.
        let aggregate = sqlFunction + "(" + sql + ")"
        let result = function == "@sum" ? "COALESCE(" + aggregate + ", 0)" : aggregate
        return .scalar("(SELECT " + result + rows.fromWhere() + ")", ScalarInfo(attribute: info.attribute))
    }

    /// `r[FIRST].a`, `r[LAST]`, `r.a[2]`: one element of a to-many path, the elements ordered by
    /// their id (as the evaluator orders them); NULL when there is no such element.
    func element(_ which: PathPart, in scope: Scope, over prefix: ArraySlice<String>,
                 then suffix: ArraySlice<String>) throws -> Operand {
        let saved = collection
        collection = nil
        defer { collection = saved }
        let end = prefix.isEmpty ? KeyPathEnd.row(scope) : try walk(scope, prefix)
        let value: Operand
        switch end {
        case .toMany(let owner, let relationship):
            value = try keyPath(root: try enter(relationship, from: owner), suffix)
        case .attribute where collection != nil && suffix.isEmpty:
            value = try operand(for: end)
        default:
            throw PortalPredicateError(.invalidOperation, "[FIRST], [LAST] and [index] need a to-many key path or a list")
        }
        // With two to-many steps the evaluator orders elements per parent; one step keeps it simple.
        guard let rows = collection, rows.crossings == 1, case .scalar(let sql, let info) = value else {
            throw PortalPredicateError(.unsupported, "[FIRST], [LAST] and [index] apply to one to-many relationship and an attribute")
        }
        let key = self.entity(rows.steps.last?.entity ?? "").identifyingColumns
        var ascending = true
        var offset: Int64 = 0
        switch which {
        case .first: break
        case .last: ascending = false
        case .index(let expression):
            guard case .scalar(_, let index) = try operand(expression, in: scope), let position = index.literal else {
                throw PortalPredicateError(.unsupported, "a subscript of a relationship must be a number")
            }
            switch position {
            case .integer(let integer): offset = integer
            case .real(let real) where real == real.rounded() && abs(real) < 1e15: offset = Int64(real)
            default: return .literal(.null)
            }
            if offset < 0 { return .literal(.null) }
        default:
            throw PortalPredicateError(.unsupported, "unsupported subscript")
        }
        let alias = rows.elementAlias
        let order = key.map { column(alias, $0, dialect) + (ascending ? " ASC" : " DESC") }.joined(separator: ", ")
        return .scalar("(SELECT " + sql + rows.fromWhere() + " ORDER BY " + order + " LIMIT 1 OFFSET "
                           + .bound(.integer(offset)) + ")", ScalarInfo(attribute: info.attribute, isIdentity: info.isIdentity))
    }

    static let aggregateFunctions = ["@count": "COUNT", "@sum": "SUM", "@avg": "AVG", "@min": "MIN", "@max": "MAX"]

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    func subqueryCount(_ collectionPath: ExpressionTree, _ variable: String, _ predicate: PredicateTree,
                       in scope: Scope) throws -> Operand {
        let saved = collection
        collection = nil
        defer { collection = saved }
        let (root, parts) = flatten(collectionPath)
        let start: Scope
        switch root {
        case .self: start = scope
        case .variable(let name) where scope.variables[name] != nil: start = scope.variables[name] ?? scope
        default: throw PortalPredicateError(.invalidOperation, "SUBQUERY needs a to-many key path as its collection")
        }
        guard !parts.isEmpty, parts.allSatisfy(\.isName),
              case .toMany(let owner, let relationship) = try walk(start, names(parts[...])) else {
            throw PortalPredicateError(.invalidOperation, "SUBQUERY needs a to-many key path as its collection")
        }
        var element = try enter(relationship, from: owner)
        element.variables[variable] = element
        guard let rows = collection else {
            throw PortalPredicateError(.invalidOperation, "SUBQUERY needs a to-many key path as its collection")
        }
        let condition = try self.predicate(predicate, in: element)
        return .scalar("(SELECT COUNT(*)" + rows.fromWhere(condition) + ")", .computed)
    }
}
