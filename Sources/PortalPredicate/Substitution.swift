extension PredicateTree {
    /// This predicate with every free `$name` replaced by its value (a list becomes `{…}`).
    /// Variables bound by a `SUBQUERY` stay. A free variable missing from `variables` is an
    /// `.unknownName` error that suggests the closest given name.
    public func substituting(variables: [String: Argument]) throws(PortalPredicateError) -> PredicateTree {
        var substitution = Substitution(values: variables)
        return try substitution.predicate(self)
    }
}

extension ExpressionTree {
    /// This expression with every free `$name` replaced by its value.
    public func substituting(variables: [String: Argument]) throws(PortalPredicateError) -> ExpressionTree {
        var substitution = Substitution(values: variables)
        return try substitution.expression(self)
    }
}

private struct Substitution {
    let values: [String: Argument]
    /// Variables bound by the SUBQUERYs we are inside.
    var bound: [String] = []

    mutating func predicate(_ p: PredicateTree) throws(PortalPredicateError) -> PredicateTree {
        switch p {
        case .constant: return p
        case .not(let a): return .not(try predicate(a))
        case .and(let operands): return .and(try list(operands))
        case .or(let operands): return .or(try list(operands))
        case .comparison(var c):
            c.left = try expression(c.left)
            c.right = try expression(c.right)
            return .comparison(c)
        }
    }

    private mutating func list(_ operands: [PredicateTree]) throws(PortalPredicateError) -> [PredicateTree] {
        var result: [PredicateTree] = []
        result.reserveCapacity(operands.count)
        for operand in operands { result.append(try predicate(operand)) }
        return result
    }

    mutating func expression(_ e: ExpressionTree) throws(PortalPredicateError) -> ExpressionTree {
        switch e {
        case .literal, .self, .key: return e
        case .variable(let name):
            if bound.contains(name) { return e }
            switch values[name] {
            case .value(let v)?: return .literal(try checked(v, name))
            case .list(let vs)?:
                var elements: [ExpressionTree] = []
                for v in vs { elements.append(.literal(try checked(v, name))) }
                return .aggregate(elements)
            case .date?: return values[name]?.expression ?? e
            case nil:
                throw PortalPredicateError(.unknownName, "no value for the variable $\(name)",
                                     suggestion: closestName(to: name, among: Array(values.keys)).map { "$" + $0 })
            }
        case .member(let base, let name): return .member(try expression(base), name)
        case .subscript(let base, let index):
            if case .expression(let i) = index { return .subscript(try expression(base), .expression(try expression(i))) }
            return .subscript(try expression(base), index)
        case .aggregate(let elements):
            var result: [ExpressionTree] = []
            for element in elements { result.append(try expression(element)) }
            return .aggregate(result)
        case .function(let name, let arguments):
            var result: [ExpressionTree] = []
            for argument in arguments { result.append(try expression(argument)) }
            return .function(name, result)
        case .subquery(let collection, let variable, let inner):
            let newCollection = try expression(collection)
            bound.append(variable)
            defer { bound.removeLast() }
            return .subquery(collection: newCollection, variable: variable, predicate: try predicate(inner))
        case .cast(let value, let type): return .cast(try expression(value), type)
        case .arithmetic(let a, let op, let b): return .arithmetic(try expression(a), op, try expression(b))
        case .negate(let a):
            // Keep the tree canonical: a negated number is a negative literal, as the parser makes it.
            switch try expression(a) {
            case .literal(.integer(let i)) where i != Int64.min: return .literal(.integer(-i))
            case .literal(.real(let r)): return .literal(.real(-r))
            case .literal(.decimal(let d)): return .literal(.decimal(d.negated))
            case let other: return .negate(other)
            }
        }
    }

    private func checked(_ value: Value, _ name: String) throws(PortalPredicateError) -> Value {
        if case .real(let r) = value, r.isNaN {
            throw PortalPredicateError(.argument, "$\(name) is NaN, which a predicate cannot compare with")
        }
        return value
    }
}
