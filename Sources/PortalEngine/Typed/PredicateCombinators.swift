import Foundation
import PortalPredicate

// What each Swift predicate operation means in the engine's tree, given its translated operands:
// shared by Foundation's `PredicateExpressions` (a `#Predicate`) and the shell's parser of the
// same closure written as text, so that both have one meaning.

/// One element of a to-many relationship an inner closure ranges over (`$0.tracks.contains { … }`).
struct CollectionElement {
    var path: ExpressionTree
    /// The subquery variable the element is bound to.
    var name: String
    /// The condition of a `filter` before the closure, on the same variable.
    var filter: PredicateTree?
    var entity: RowEntity
    /// The element as the closure's parameter.
    var row: TranslatedExpression { .row(prefix: .variable(name), type: entity) }
}

extension FoundationPredicateTranslator {
    func and(_ lhs: TranslatedExpression, _ rhs: TranslatedExpression) throws -> TranslatedExpression {
        let a = try predicate(lhs), b = try predicate(rhs)
        // A chain `a && b && c` is one list, as the parser makes it.
        if case .and(let operands) = a { return .predicate(.and(operands + [b])) }
        return .predicate(.and([a, b]))
    }

    func or(_ lhs: TranslatedExpression, _ rhs: TranslatedExpression) throws -> TranslatedExpression {
        let a = try predicate(lhs), b = try predicate(rhs)
        if case .or(let operands) = a { return .predicate(.or(operands + [b])) }
        return .predicate(.or([a, b]))
    }

    func notEqual(_ a: TranslatedExpression, _ b: TranslatedExpression) throws -> PredicateTree {
        // Values keep the tree's `!=`, which is true of NULL and a value, as Swift's is of nil.
        if case .values = a, (try? values(b)) != nil { return try compare(a, .notEqual, b) }
        if case .values = b, (try? values(a)) != nil { return try compare(a, .notEqual, b) }
        return .not(try equal(a, b))
    }

    /// `condition ? yes : no`.
    func conditional(_ condition: PredicateTree, _ yes: TranslatedExpression, _ no: TranslatedExpression) throws -> TranslatedExpression {
        if yes.isCondition || no.isCondition {
            let a = try predicate(yes), b = try predicate(no)
            return .predicate(.or([.and([condition, a]), .and([.not(condition), b])]))
        }
        let whenTrue = try values(yes).map {
            GuardedValue(condition: Self.both($0.condition, condition), expression: $0.expression)
        }
        let whenFalse = try values(no).map {
            GuardedValue(condition: Self.both($0.condition, .not(condition)), expression: $0.expression)
        }
        return .values(whenTrue + whenFalse)
    }

    /// `base?.…`: `transformed` is what follows the `?`, computed on `base` unwrapped.
    func optionalChain(_ base: TranslatedExpression, _ transformed: TranslatedExpression) throws -> TranslatedExpression {
        let present = try compare(base, .notEqual, .null)
        switch transformed {
        case .predicate(let p): return .optionalPredicate(present: present, p)
        case .optionalPredicate(let inner, let p): return .optionalPredicate(present: .and([present, inner]), p)
        // A key path through a missing row is NULL already, as is arithmetic on NULL.
        case let other: return other
        }
    }

    /// `left ?? right`.
    func coalesce(_ left: TranslatedExpression, _ right: TranslatedExpression) throws -> TranslatedExpression {
        if case .optionalPredicate(let present, let p) = left {
            let otherwise = try predicate(right)
            return .predicate(.or([.and([present, p]), .and([.not(present), otherwise])]))
        }
        let values = try values(left)
        let isNil = try Self.either(values.map {
            Self.both($0.condition, .comparison(Comparison($0.expression, .equal, .literal(.null))))
        })
        let present = values.map {
            GuardedValue(condition: Self.both($0.condition, .comparison(Comparison($0.expression, .notEqual, .literal(.null)))),
                         expression: $0.expression)
        }
        let fallback = try self.values(right).map {
            GuardedValue(condition: Self.both($0.condition, isNil), expression: $0.expression)
        }
        return .values(present + fallback)
    }

    /// An arithmetic operation over every pair of alternatives.
    func arithmetic(_ lhs: TranslatedExpression, _ rhs: TranslatedExpression,
                    _ combine: (ExpressionTree, ExpressionTree) -> ExpressionTree) throws -> TranslatedExpression {
        var results: [GuardedValue] = []
        for l in try values(lhs) {
            for r in try values(rhs) {
                let condition: PredicateTree? = switch (l.condition, r.condition) {
                case (nil, nil): nil
                case (let a?, nil): a
                case (nil, let b?): b
                case (let a?, let b?): .and([a, b])
                }
                results.append(GuardedValue(condition: condition, expression: combine(l.expression, r.expression)))
            }
        }
        guard results.count <= Self.maximumAlternatives else {
            throw PortalPredicateError(.unsupported, "the predicate has more than \(Self.maximumAlternatives) alternative values "
                                       + "(from ?? and ?: in one expression)")
        }
        return .values(results)
    }

    func negated(_ value: TranslatedExpression) throws -> TranslatedExpression {
        if case .constant(let number) = value, let integer = number as? Int { return .constant(-integer) }
        if case .constant(let number) = value, let real = number as? Double { return .constant(-real) }
        return .values(try values(value).map { GuardedValue(condition: $0.condition, expression: .negate($0.expression)) })
    }

    /// `text.starts(with: part)`, `text.contains(part)`, `text.hasSuffix(part)` (`op` BEGINSWITH,
    /// CONTAINS, ENDSWITH). A captured empty string is found in every string by Swift, in none
    /// by NSPredicate: decided here.
    func text(_ text: TranslatedExpression, _ op: ComparisonOperator, _ part: TranslatedExpression,
              options: ComparisonOptions = []) throws -> TranslatedExpression {
        if case .constant(let value) = part, (value as? String)?.isEmpty == true || (value as? Substring)?.isEmpty == true {
            return .predicate(.constant(true))
        }
        return .predicate(try compare(text, op, part, options: options))
    }

    /// `collection.contains(value)`: a captured list (`IN`), or a character in text.
    func contains(_ collection: TranslatedExpression, _ value: TranslatedExpression) throws -> TranslatedExpression {
        switch collection {
        case .constant(let list) where !(list is String):
            // A captured list: `IN`; an empty one contains nothing.
            if let values = list as? any Swift.Collection, values.isEmpty { return .predicate(.constant(false)) }
            return .predicate(try compare(value, .in, collection))
        case .values:
            return try text(collection, .contains, value)
        case .range:
            return try rangeContains(collection, value)
        default:
            throw Self.refused("contains(_:) on a \(Self.describe(collection))")
        }
    }

    /// `(lower...upper).contains(value)`, `(lower..<upper).contains(value)`.
    func rangeContains(_ range: TranslatedExpression, _ value: TranslatedExpression) throws -> TranslatedExpression {
        var bounds = range
        if case .constant(let captured) = range, let range = captured as? any RangePredicateValue {
            let (lower, upper, closed) = range.predicateBounds
            bounds = .range(lower: .constant(lower), upper: .constant(upper), closed: closed)
        }
        guard case .range(let lower, let upper, let closed) = bounds else {
            throw Self.refused("contains(_:) on a \(Self.describe(bounds))")
        }
        return .predicate(.and([try compare(value, .greaterOrEqual, lower),
                                try compare(value, closed ? .lessOrEqual : .less, upper)]))
    }

    /// `count` of a to-many relationship (of the rows a `filter` keeps) or of text.
    func count(of base: TranslatedExpression) throws -> TranslatedExpression {
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
            throw Self.refused("count of a \(Self.describe(base))")
        }
    }

    func isEmpty(_ base: TranslatedExpression) throws -> TranslatedExpression {
        .predicate(try compare(count(of: base), .equal, .constant(0)))
    }

    /// The element an inner closure over `collection` ranges over; its variable is the one of a
    /// `filter` before it, so that both conditions share it.
    mutating func element(of collection: TranslatedExpression) throws -> CollectionElement {
        guard case .collection(let path, let entity, let filter) = collection else {
            throw Self.refused("a closure over a \(Self.describe(collection)) (only to-many relationships)")
        }
        return CollectionElement(path: path, name: filter?.variable ?? subqueryVariable(), filter: filter?.1, entity: entity)
    }

    /// `collection.contains { test }`.
    func containsWhere(_ element: CollectionElement, _ test: TranslatedExpression) throws -> TranslatedExpression {
        let condition = Self.both(element.filter, try predicate(test))
        let count = ExpressionTree.member(.subquery(collection: element.path, variable: element.name, predicate: condition), "@count")
        return .predicate(.comparison(Comparison(count, .greater, .literal(.integer(0)))))
    }

    /// `collection.allSatisfy { test }`.
    func allSatisfy(_ element: CollectionElement, _ test: TranslatedExpression) throws -> TranslatedExpression {
        let failing = Self.both(element.filter, .not(try predicate(test)))
        let count = ExpressionTree.member(.subquery(collection: element.path, variable: element.name, predicate: failing), "@count")
        return .predicate(.comparison(Comparison(count, .equal, .literal(.integer(0)))))
    }

    /// `collection.filter { test }`.
    func filtered(_ element: CollectionElement, _ test: TranslatedExpression) throws -> TranslatedExpression {
        let condition = Self.both(element.filter, try predicate(test))
        return .collection(path: element.path, element: element.entity, filter: (element.name, condition))
    }
}
