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
        case .collectionCount?: return try Self.count(of: base)
        case .collectionIsEmpty?:
            return .predicate(try translator.compare(Self.count(of: base), .equal, .constant(0)))
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
        guard case .row(let prefix, let type) = base else {
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
        if let entity = PredicateTypes.entity(Output.self) { return .row(prefix: path, type: entity) }
        if let element = PredicateTypes.elementEntity(Output.self) {
            return .collection(path: path, element: element, filter: nil)
        }
        return .values([GuardedValue(condition: nil, expression: path)])
    }

    /// `count` of a to-many relationship (of the rows a `filter` keeps) or of text.
    private static func count(of base: TranslatedExpression) throws -> TranslatedExpression {
        switch base {
        case .collection(let path, _, nil):
            return .values([GuardedValue(condition: nil, expression: .member(path, "@count"))])
        case .collection(let path, _, let (variable, filter)?):
            let subquery = ExpressionTree.subquery(collection: path, variable: variable, predicate: filter)
            return .values([GuardedValue(condition: nil, expression: .member(subquery, "@count"))])
        case .values(let values):
            return .values(values.map { GuardedValue(condition: $0.condition, expression: .function("length", [$0.expression])) })
        case .constant(let value):
            return .constant((value as? any Swift.Collection)?.count ?? 0)
        default:
            throw Translator.refused("count of a \(Translator.describe(base))")
        }
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let a = try translator.predicate(translator.translate(lhs)), b = try translator.predicate(translator.translate(rhs))
        // A chain `a && b && c` is one list, as the parser makes it.
        if case .and(let operands) = a { return .predicate(.and(operands + [b])) }
        return .predicate(.and([a, b]))
    }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let a = try translator.predicate(translator.translate(lhs)), b = try translator.predicate(translator.translate(rhs))
        if case .or(let operands) = a { return .predicate(.or(operands + [b])) }
        return .predicate(.or([a, b]))
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
        let a = try translator.translate(lhs), b = try translator.translate(rhs)
        // Values keep the tree's `!=`, which is true of NULL and a value, as Swift's is of nil.
        if case .values = a, (try? translator.values(b)) != nil { return .predicate(try translator.compare(a, .notEqual, b)) }
        if case .values = b, (try? translator.values(a)) != nil { return .predicate(try translator.compare(a, .notEqual, b)) }
        return .predicate(.not(try translator.equal(a, b)))
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
        let condition = try translator.predicate(translator.translate(test))
        let yes = try translator.translate(trueBranch), no = try translator.translate(falseBranch)
        if yes.isCondition || no.isCondition {
            let a = try translator.predicate(yes), b = try translator.predicate(no)
            return .predicate(.or([.and([condition, a]), .and([.not(condition), b])]))
        }
        let whenTrue = try translator.values(yes).map {
            GuardedValue(condition: Translator.both($0.condition, condition), expression: $0.expression)
        }
        let whenFalse = try translator.values(no).map {
            GuardedValue(condition: Translator.both($0.condition, .not(condition)), expression: $0.expression)
        }
        return .values(whenTrue + whenFalse)
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let base = try translator.translate(wrapped)
        translator.bind(variable.key, to: base)
        let present = try translator.compare(base, .notEqual, .null)
        switch try translator.translate(transform) {
        case .predicate(let p): return .optionalPredicate(present: present, p)
        case .optionalPredicate(let inner, let p): return .optionalPredicate(present: .and([present, inner]), p)
        // A key path through a missing row is NULL already, as is arithmetic on NULL.
        case let other: return other
        }
    }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let left = try translator.translate(lhs), right = try translator.translate(rhs)
        if case .optionalPredicate(let present, let p) = left {
            let otherwise = try translator.predicate(right)
            return .predicate(.or([.and([present, p]), .and([.not(present), otherwise])]))
        }
        let values = try translator.values(left)
        let isNil = try Translator.either(values.map {
            Translator.both($0.condition, .comparison(Comparison($0.expression, .equal, .literal(.null))))
        })
        let present = values.map {
            GuardedValue(condition: Translator.both($0.condition, .comparison(Comparison($0.expression, .notEqual, .literal(.null)))),
                         expression: $0.expression)
        }
        let fallback = try translator.values(right).map {
            GuardedValue(condition: Translator.both($0.condition, isNil), expression: $0.expression)
        }
        return .values(present + fallback)
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.translate(inner)
    }
}

// MARK: Arithmetic

/// `op` over every pair of alternatives.
private func arithmetic(_ translator: FoundationPredicateTranslator, _ lhs: TranslatedExpression,
                        _ rhs: TranslatedExpression,
                        _ combine: (ExpressionTree, ExpressionTree) -> ExpressionTree) throws -> TranslatedExpression {
    var results: [GuardedValue] = []
    for l in try translator.values(lhs) {
        for r in try translator.values(rhs) {
            let condition: PredicateTree? = switch (l.condition, r.condition) {
            case (nil, nil): nil
            case (let a?, nil): a
            case (nil, let b?): b
            case (let a?, let b?): .and([a, b])
            }
            results.append(GuardedValue(condition: condition, expression: combine(l.expression, r.expression)))
        }
    }
    guard results.count <= Translator.maximumAlternatives else {
        throw PortalPredicateError(.unsupported, "the predicate has more than \(Translator.maximumAlternatives) alternative values "
                             + "(from ?? and ?: in one expression)")
    }
    return .values(results)
}

extension PredicateExpressions.Arithmetic: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let op: ArithmeticOperator = switch self.op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        return try arithmetic(translator, translator.translate(lhs), translator.translate(rhs)) { .arithmetic($0, op, $1) }
    }
}

extension PredicateExpressions.FloatDivision: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try arithmetic(translator, translator.translate(lhs), translator.translate(rhs)) { .arithmetic($0, .divide, $1) }
    }
}

extension PredicateExpressions.IntDivision: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        // Swift's integer division truncates toward zero; the tree's `/` is real division.
        try arithmetic(translator, translator.translate(lhs), translator.translate(rhs)) {
            .function("trunc", [.arithmetic($0, .divide, $1)])
        }
    }
}

extension PredicateExpressions.IntRemainder: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        // a % b == a - b * trunc(a / b): the sign of a, as Swift's.
        try arithmetic(translator, translator.translate(lhs), translator.translate(rhs)) {
            .arithmetic($0, .subtract, .arithmetic($1, .multiply, .function("trunc", [.arithmetic($0, .divide, $1)])))
        }
    }
}

extension PredicateExpressions.UnaryMinus: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        .values(try translator.values(translator.translate(wrapped)).map {
            GuardedValue(condition: $0.condition, expression: .negate($0.expression))
        })
    }
}

// MARK: Text and ranges

/// A captured empty string: Swift finds it in every string, NSPredicate's CONTAINS in none.
private func isEmptyText(_ translated: TranslatedExpression) -> Bool {
    guard case .constant(let value) = translated else { return false }
    return (value as? String)?.isEmpty == true || (value as? Substring)?.isEmpty == true
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let text = try translator.translate(base), start = try translator.translate(prefix)
        if isEmptyText(start) { return .predicate(.constant(true)) }
        return .predicate(try translator.compare(text, .beginsWith, start))
    }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let text = try translator.translate(base), part = try translator.translate(other)
        if isEmptyText(part) { return .predicate(.constant(true)) }
        return .predicate(try translator.compare(text, .contains, part))
    }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let collection = try translator.translate(sequence), value = try translator.translate(element)
        switch collection {
        case .constant(let list) where !(list is String):
            // A captured list: `IN`; an empty one contains nothing.
            if let values = list as? any Swift.Collection, values.isEmpty { return .predicate(.constant(false)) }
            return .predicate(try translator.compare(value, .in, collection))
        case .values:
            // A character in text.
            return .predicate(try translator.compare(collection, .contains, value))
        default:
            throw Translator.refused("contains(_:) on a \(Translator.describe(collection))")
        }
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
        var bounds = try translator.translate(range)
        if case .constant(let value) = bounds, let captured = value as? any RangePredicateValue {
            let (lower, upper, closed) = captured.predicateBounds
            bounds = .range(lower: .constant(lower), upper: .constant(upper), closed: closed)
        }
        guard case .range(let lower, let upper, let closed) = bounds else {
            throw Translator.refused("contains(_:) on a \(Translator.describe(bounds))")
        }
        let value = try translator.translate(element)
        return .predicate(.and([try translator.compare(value, .greaterOrEqual, lower),
                                try translator.compare(value, closed ? .lessOrEqual : .less, upper)]))
    }
}

// MARK: To-many relationships

/// The rows of a to-many relationship an inner closure ranges over, its variable bound to one of
/// them; the variable is the one of a `filter` before it, so that both conditions share it.
private func element(of sequence: Any, variable: PredicateExpressions.VariableID,
                     _ translator: inout FoundationPredicateTranslator)
    throws -> (path: ExpressionTree, name: String, filter: PredicateTree?, type: any PortalEntity.Type) {
    let collection = try translator.translate(sequence)
    guard case .collection(let path, let type, let filter) = collection else {
        throw Translator.refused("a closure over a \(Translator.describe(collection)) (only to-many relationships)")
    }
    let name = filter?.variable ?? translator.subqueryVariable()
    translator.bind(variable, to: .row(prefix: .variable(name), type: type))
    return (path, name, filter?.1, type)
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let (path, name, filter, _) = try element(of: sequence, variable: variable.key, &translator)
        let condition = Translator.both(filter, try translator.predicate(translator.translate(test)))
        let count = ExpressionTree.member(.subquery(collection: path, variable: name, predicate: condition), "@count")
        return .predicate(.comparison(Comparison(count, .greater, .literal(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let (path, name, filter, _) = try element(of: sequence, variable: variable.key, &translator)
        let failing = Translator.both(filter, .not(try translator.predicate(translator.translate(test))))
        let count = ExpressionTree.member(.subquery(collection: path, variable: name, predicate: failing), "@count")
        return .predicate(.comparison(Comparison(count, .equal, .literal(.integer(0)))))
    }
}

extension PredicateExpressions.Filter: TranslatableExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        let (path, name, earlier, type) = try element(of: sequence, variable: variable.key, &translator)
        let condition = Translator.both(earlier, try translator.predicate(translator.translate(filter)))
        return .collection(path: path, element: type, filter: (name, condition))
    }
}
