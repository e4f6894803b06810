import PortalPredicate

// The functions of docs/predicates.md; the dialect names the SQL function of each.

extension SQLCompiler {
    static let scalarFunctions: Set<String> = [
        "lowercase", "uppercase", "abs", "sqrt", "floor", "ceiling", "trunc", "ln", "log", "exp", "length",
    ]
    /// The scalar functions whose result is text.
    static let textFunctions: Set<String> = ["lowercase", "uppercase"]
    static let aggregateFunctionNames = ["sum": "@sum", "count": "@count", "min": "@min", "max": "@max",
                                         "average": "@avg", "avg": "@avg", GroupAggregate.countDistinct: "@count"]

    func function(_ name: String, _ arguments: [ExpressionTree], in scope: Scope) throws -> Operand {
        let lowered = name.lowercased()
        if lowered == "now" {
            guard arguments.isEmpty else { throw argumentCount(name, 0) }
            return .date(Dates.now())
        }
        if Self.scalarFunctions.contains(lowered), let sqlName = dialect.function(lowered) {
            guard arguments.count == 1 else { throw argumentCount(name, 1) }
            let (sql, _) = try number(arguments[0], in: scope, for: name + "()")
            var info = ScalarInfo.computed
            if Self.textFunctions.contains(lowered) { info.textFunction = lowered }
            return .scalar(.raw(sqlName + "(") + sql + ")", info)
        }
        if let aggregate = Self.aggregateFunctionNames[lowered] {
            if lowered == "count", arguments.isEmpty { return try countRows() }
            guard arguments.count == 1 else { throw argumentCount(name, 1) }
            if let grouped = try groupAggregate(aggregate, lowered, arguments[0], in: scope) { return grouped }
            return try aggregateFunction(aggregate, name, arguments[0], in: scope)
        }
        failingToken = name
        let known = Array(Self.scalarFunctions) + Array(Self.aggregateFunctionNames.keys) + ["now"]
        throw PortalPredicateError(.unknownName, "no function named \(name)()", suggestion: closestName(to: lowered, among: known))
    }

    /// `sum(tracks.Milliseconds)`, `count(tracks)`, `max({1, 2})`.
    private func aggregateFunction(_ aggregate: String, _ name: String, _ argument: ExpressionTree,
                                   in scope: Scope) throws -> Operand {
        let (root, parts) = flatten(argument)
        if case .self = root, !parts.isEmpty,
           parts.allSatisfy(\.isName) {
            return try self.aggregate(aggregate, in: scope, over: names(parts[...]), then: [])
        }
        guard case .list(let elements) = try operand(argument, in: scope) else {
            throw PortalPredicateError(.invalidOperation, "\(name)() needs a to-many key path or a list")
        }
        if aggregate == "@count" { return .literal(.integer(Int64(elements.count))) }
        let rows = try elements.map { element -> SQLFragment in
            guard case .scalar(let sql, _) = element else {
                throw PortalPredicateError(.invalidOperation, "\(name)() needs a list of values")
            }
            return "SELECT " + sql + " AS v"
        }
        guard !rows.isEmpty, let sqlFunction = Self.aggregateFunctions[aggregate] else {
            return .literal(aggregate == "@sum" ? .integer(0) : .null)
        }
        return .scalar("(SELECT " + sqlFunction + "(v) FROM (" + .joined(rows, separator: " UNION ALL ") + "))",
                       .computed)
    }

    private func argumentCount(_ name: String, _ count: Int) -> PortalPredicateError {
        PortalPredicateError(.invalidOperation, "\(name)() takes \(count) argument\(count == 1 ? "" : "s")")
    }
}
