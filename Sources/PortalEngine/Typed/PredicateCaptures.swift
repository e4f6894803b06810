import Foundation

// What a `#Predicate` holds besides its expression's static type: the key paths it names, the
// values it captured (literals too: the macro makes each a `PredicateExpressions.Value`) and
// the operators of its comparisons and arithmetic. Two predicates that agree on all of these
// translate alike, so their compiled SQL differs at most in bound values
// (`CompiledPredicateCache`). Reading them costs a walk through the expression with no casts:
// each expression type collects its own and asks its operands, known statically through the
// conformances' conditions.

/// A predicate's key paths, captured values and operators, in the order translation meets them.
struct PredicateCaptures {
    var keyPaths: [AnyKeyPath] = []
    var values: [Any] = []
    var operators: [UInt8] = []

    /// Those of `predicate`, or nil when its expression holds a type translation refuses (or
    /// one of a test's own): translation then says which.
    static func of<Entity>(_ predicate: Predicate<Entity>) -> PredicateCaptures? {
        guard let expression = predicate.expression as? any CapturingExpression else { return nil }
        var captures = PredicateCaptures()
        captures.values.reserveCapacity(8)
        expression.capture(into: &captures)
        return captures
    }
}

/// An expression whose captures can be read; its operands' types conform too.
protocol CapturingExpression {
    func capture(into captures: inout PredicateCaptures)
}

// MARK: Leaves

extension PredicateExpressions.Variable: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {}
}

extension PredicateExpressions.Value: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { captures.values.append(value) }
}

extension PredicateExpressions.NilLiteral: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {}
}

extension PredicateExpressions.KeyPath: CapturingExpression where Root: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        root.capture(into: &captures)
        captures.keyPaths.append(keyPath)
    }
}

// MARK: Two operands, translated left then right

extension PredicateExpressions.Conjunction: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.Disjunction: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.Equal: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.NotEqual: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.Comparison: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        // The operator is a stored value, not part of the type: `<` and `>` share one.
        let code: UInt8 = switch op {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .greaterThan: 2
        case .greaterThanOrEqual: 3
        }
        captures.operators.append(code)
        lhs.capture(into: &captures)
        rhs.capture(into: &captures)
    }
}

extension PredicateExpressions.Arithmetic: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        let code: UInt8 = switch op {
        case .add: 10
        case .subtract: 11
        case .multiply: 12
        }
        captures.operators.append(code)
        lhs.capture(into: &captures)
        rhs.capture(into: &captures)
    }
}

extension PredicateExpressions.FloatDivision: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.IntDivision: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.IntRemainder: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.NilCoalesce: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lhs.capture(into: &captures); rhs.capture(into: &captures) }
}

extension PredicateExpressions.OptionalFlatMap: CapturingExpression
where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        wrapped.capture(into: &captures)
        transform.capture(into: &captures)
    }
}

extension PredicateExpressions.SequenceStartsWith: CapturingExpression
where Base: CapturingExpression, Prefix: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { base.capture(into: &captures); prefix.capture(into: &captures) }
}

extension PredicateExpressions.CollectionContainsCollection: CapturingExpression
where Base: CapturingExpression, Other: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { base.capture(into: &captures); other.capture(into: &captures) }
}

extension PredicateExpressions.SequenceContains: CapturingExpression
where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        sequence.capture(into: &captures)
        element.capture(into: &captures)
    }
}

extension PredicateExpressions.ClosedRange: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lower.capture(into: &captures); upper.capture(into: &captures) }
}

extension PredicateExpressions.Range: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { lower.capture(into: &captures); upper.capture(into: &captures) }
}

extension PredicateExpressions.RangeExpressionContains: CapturingExpression
where RangeExpression: CapturingExpression, Element: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { range.capture(into: &captures); element.capture(into: &captures) }
}

extension PredicateExpressions.SequenceContainsWhere: CapturingExpression
where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { sequence.capture(into: &captures); test.capture(into: &captures) }
}

extension PredicateExpressions.SequenceAllSatisfy: CapturingExpression
where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { sequence.capture(into: &captures); test.capture(into: &captures) }
}

extension PredicateExpressions.Filter: CapturingExpression where LHS: CapturingExpression, RHS: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { sequence.capture(into: &captures); filter.capture(into: &captures) }
}

// MARK: One operand, or three

extension PredicateExpressions.Negation: CapturingExpression where Wrapped: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { wrapped.capture(into: &captures) }
}

extension PredicateExpressions.ForcedUnwrap: CapturingExpression where Inner: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { inner.capture(into: &captures) }
}

extension PredicateExpressions.UnaryMinus: CapturingExpression where Wrapped: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) { wrapped.capture(into: &captures) }
}

extension PredicateExpressions.Conditional: CapturingExpression
where Test: CapturingExpression, If: CapturingExpression, Else: CapturingExpression {
    func capture(into captures: inout PredicateCaptures) {
        test.capture(into: &captures)
        trueBranch.capture(into: &captures)
        falseBranch.capture(into: &captures)
    }
}
