import Foundation
import PortalPredicate

/// A `PredicateExpressions` type the engine can translate. Each expression Foundation offers on
/// Linux that has a meaning on a database conforms; any other (a type check, a cast, a regular
/// expression, a dictionary or index subscript, `max()`) is refused by name.
protocol TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression
}

private typealias Translator = FoundationPredicateTranslator

// MARK: Leaves

extension PredicateExpressions.Variable: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.variable(key)
    }
}

extension PredicateExpressions.Value: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let value = translator.captured(value)
        if let optional = value as? any OptionalPredicateValue, optional.wrappedPredicateValue == nil { return .null }
        return .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression { .null }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let base = try translator.translate(root)
        switch kind {
        case .collectionCount?: return try translator.count(of: base)
        case .collectionIsEmpty?: return try translator.isEmpty(base)
        case .collectionFirst?, .bidirectionalCollectionLast?:
            throw Translator.refused("first and last of a collection")
        case nil: break
        }
        switch base {
        case .constant(let value):
            // A property of a captured value (`category.rawValue`): read here, as Swift would.
            guard let root = value as? Root.Output else { throw Translator.refused("the key path \(keyPath)") }
            return .constant(root[keyPath: keyPath])
        default: break
        }
        guard case .row(let prefix, .type(let type)) = base else {
            throw Translator.refused("the key path \(keyPath) on a \(Translator.describe(base))")
        }
        guard let name = PredicateTypes.name(of: keyPath, in: type) else {
            throw Translator.refused("the key path \(keyPath) (a computed property: declare it in \(type).predicateKeys)")
        }
        var path = prefix
        for part in name.split(separator: ".").map(String.init) {
            path = path.map { .member($0, part) } ?? .key(part)
        }
        guard let path else { throw Translator.refused("the empty key path \(keyPath)") }
        if let entity = PredicateTypes.entity(Output.self) { return .row(prefix: path, type: .type(entity)) }
        if let element = PredicateTypes.elementEntity(Output.self) {
            return .collection(path: path, element: .type(element), filter: nil)
        }
        return .values([GuardedValue(condition: nil, expression: path)])
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.and(translator.translate(lhs), translator.translate(rhs))
    }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.or(translator.translate(lhs), translator.translate(rhs))
    }
}

extension PredicateExpressions.Negation: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .predicate(.not(try translator.predicate(translator.translate(wrapped))))
    }
}

extension PredicateExpressions.Equal: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .predicate(try translator.equal(translator.translate(lhs), translator.translate(rhs)))
    }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .predicate(try translator.notEqual(translator.translate(lhs), translator.translate(rhs)))
    }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let op: ComparisonOperator = switch self.op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return .predicate(try translator.compare(translator.translate(lhs), op, translator.translate(rhs)))
    }
}

extension PredicateExpressions.Conditional: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.conditional(translator.predicate(translator.translate(test)), translator.translate(trueBranch),
                                   translator.translate(falseBranch))
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let base = try translator.translate(wrapped)
        translator.bind(variable.key, to: base)
        return try translator.optionalChain(base, translator.translate(transform))
    }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.coalesce(translator.translate(lhs), translator.translate(rhs))
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.translate(inner)
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let op: ArithmeticOperator = switch self.op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        return try translator.arithmetic(translator.translate(lhs), translator.translate(rhs)) { .arithmetic($0, op, $1) }
    }
}

extension PredicateExpressions.FloatDivision: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.arithmetic(translator.translate(lhs), translator.translate(rhs)) { .arithmetic($0, .divide, $1) }
    }
}

extension PredicateExpressions.IntDivision: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        // Swift's integer division truncates toward zero; the tree's `/` is real division.
        try translator.arithmetic(translator.translate(lhs), translator.translate(rhs)) {
            .function("trunc", [.arithmetic($0, .divide, $1)])
        }
    }
}

extension PredicateExpressions.IntRemainder: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        // a % b == a - b * trunc(a / b): the sign of a, as Swift's.
        try translator.arithmetic(translator.translate(lhs), translator.translate(rhs)) {
            .arithmetic($0, .subtract, .arithmetic($1, .multiply, .function("trunc", [.arithmetic($0, .divide, $1)])))
        }
    }
}

extension PredicateExpressions.UnaryMinus: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.negated(translator.translate(wrapped))
    }
}

// MARK: Text and ranges

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.text(translator.translate(base), .beginsWith, translator.translate(prefix))
    }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.text(translator.translate(base), .contains, translator.translate(other))
    }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.contains(translator.translate(sequence), translator.translate(element))
    }
}

/// The bounds of a captured range.
protocol RangePredicateValue { var predicateBounds: (lower: Any, upper: Any, closed: Bool) { get } }
extension ClosedRange: RangePredicateValue { var predicateBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, true) } }
extension Range: RangePredicateValue { var predicateBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, false) } }

extension PredicateExpressions.ClosedRange: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .range(lower: try translator.translate(lower), upper: try translator.translate(upper), closed: true)
    }
}

extension PredicateExpressions.Range: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .range(lower: try translator.translate(lower), upper: try translator.translate(upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.rangeContains(translator.translate(range), translator.translate(element))
    }
}

// MARK: To-many relationships

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let element = try translator.element(of: translator.translate(sequence))
        translator.bind(variable.key, to: element.row)
        return try translator.containsWhere(element, translator.translate(test))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let element = try translator.element(of: translator.translate(sequence))
        translator.bind(variable.key, to: element.row)
        return try translator.allSatisfy(element, translator.translate(test))
    }
}

extension PredicateExpressions.Filter: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let element = try translator.element(of: translator.translate(sequence))
        translator.bind(variable.key, to: element.row)
        return try translator.filtered(element, translator.translate(filter))
    }
}
