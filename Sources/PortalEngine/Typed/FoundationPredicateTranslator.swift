import Foundation
import PortalPredicate

/// One value of an expression, valid where `condition` holds (nil: always). `??` and the
/// ternary operator make several: a comparison of them is the OR of each pair's comparison
/// under both conditions.
struct GuardedValue {
    var condition: PredicateTree?
    var expression: ExpressionTree
}

/// What a row's properties are named by: a Swift entity type (a `#Predicate`'s key paths), or
/// the schema's entity (a closure written as text in the shell).
enum RowEntity {
    case type(any PortalEntity.Type)
    case schema(EntityDescription)
}

/// What a Foundation predicate expression stands for in the engine's tree.
indirect enum TranslatedExpression {
    /// A Boolean.
    case predicate(PredicateTree)
    /// An optional Boolean (`$0.album?.title.starts(with: "A")`): nil unless `present`.
    case optionalPredicate(present: PredicateTree, PredicateTree)
    /// A value of an attribute, a literal or arithmetic on them.
    case values([GuardedValue])
    /// A Swift value captured by the closure, not yet converted (it may be a range or a list).
    case constant(Any)
    /// `nil`.
    case null
    /// A row: the entity itself (`prefix` nil), a subquery's element or a to-one relationship.
    case row(prefix: ExpressionTree?, type: RowEntity)
    /// The rows of a to-many relationship, those matching `filter` when there is one.
    case collection(path: ExpressionTree, element: RowEntity, filter: (variable: String, PredicateTree)?)
    /// `lower...upper` or `lower..<upper`.
    case range(lower: TranslatedExpression, upper: TranslatedExpression, closed: Bool)
}

extension TranslatedExpression {
    /// True for a Boolean (a captured Bool is a value until it meets one).
    var isCondition: Bool {
        switch self {
        case .predicate, .optionalPredicate: return true
        default: return false
        }
    }
}

/// Walks `PredicateExpressions` values into the engine's tree (see `TranslatableExpression`).
struct FoundationPredicateTranslator {
    /// What each closure variable (`$0`, an inner closure's element) stands for.
    private var variables: [PredicateExpressions.VariableID: TranslatedExpression] = [:]
    private var subqueryCount = 0
    /// Values that stand for captured ones, by their order in the expression (what
    /// `CompiledPredicateCache` compiles to learn where each value is bound).
    var substitutes: [Int: Any] = [:]
    /// How many captured values translation has met.
    private(set) var capturedCount = 0
    /// Alternatives beyond this many (from `??` and `?:` in one comparison) are refused.
    static let maximumAlternatives = 64

    mutating func bind(_ id: PredicateExpressions.VariableID, to value: TranslatedExpression) { variables[id] = value }

    func variable(_ id: PredicateExpressions.VariableID) throws -> TranslatedExpression {
        guard let value = variables[id] else { throw Self.refused("a variable of another predicate") }
        return value
    }

    /// A fresh `$variable` name for a subquery over a to-many relationship.
    mutating func subqueryVariable() -> String {
        subqueryCount += 1
        return "e\(subqueryCount)"
    }

    /// A captured value, or the value that stands for it.
    mutating func captured(_ value: Any) -> Any {
        defer { capturedCount += 1 }
        return substitutes.isEmpty ? value : substitutes[capturedCount] ?? value
    }

    mutating func translate(_ expression: Any) throws -> TranslatedExpression {
        guard let translatable = expression as? any TranslatableExpression else {
            throw Self.refused(Self.kind(of: expression))
        }
        return try translatable.translate(&self)
    }

    /// `PredicateExpressions.TypeCheck` for a value of `TypeCheck<…>`.
    static func kind(of expression: Any) -> String {
        let name = String(describing: type(of: expression))
        return "PredicateExpressions." + (name.split(separator: "<").first.map(String.init) ?? name)
    }

    static func refused(_ what: String) -> PortalPredicateError {
        PortalPredicateError(.unsupported, "\(what) has no translation to a database query")
    }

    // MARK: Conversions between kinds

    /// The expression as a Boolean.
    func predicate(_ translated: TranslatedExpression) throws -> PredicateTree {
        switch translated {
        case .predicate(let p): return p
        case .optionalPredicate:
            throw PortalPredicateError(.unsupported, "an optional Bool is not a condition: compare it with == true or use ?? false")
        case .constant(let value):
            if let bool = value as? Bool { return .constant(bool) }
            throw PortalPredicateError(.unsupported, "the value \(value) is not a condition")
        case .values(let values):
            // A Bool attribute: stored as 1 and 0.
            return try Self.either(values.map { value in
                let test = PredicateTree.comparison(Comparison(value.expression, .equal, .literal(.integer(1))))
                return value.condition.map { .and([$0, test]) } ?? test
            })
        case .null, .row, .collection, .range:
            throw PortalPredicateError(.unsupported, "a \(Self.describe(translated)) is not a condition")
        }
    }

    /// The expression as values (an attribute, a literal, arithmetic).
    func values(_ translated: TranslatedExpression) throws -> [GuardedValue] {
        switch translated {
        case .values(let values): return values
        case .constant(let value): return [GuardedValue(condition: nil, expression: try Self.literal(value))]
        case .null: return [GuardedValue(condition: nil, expression: .literal(.null))]
        case .row(let prefix?, _): return [GuardedValue(condition: nil, expression: prefix)]
        case .predicate, .optionalPredicate, .row, .collection, .range:
            throw PortalPredicateError(.unsupported, "a \(Self.describe(translated)) is not a value a database can compare")
        }
    }

    static func describe(_ translated: TranslatedExpression) -> String {
        switch translated {
        case .predicate, .optionalPredicate: return "condition"
        case .values, .constant: return "value"
        case .null: return "nil"
        case .row: return "row"
        case .collection: return "to-many relationship"
        case .range: return "range"
        }
    }

    /// `a OR b OR …`, without a list of one.
    static func either(_ operands: [PredicateTree]) throws -> PredicateTree {
        guard operands.count <= maximumAlternatives else {
            throw PortalPredicateError(.unsupported, "the predicate has more than \(maximumAlternatives) alternative values "
                                 + "(from ?? and ?: in one comparison)")
        }
        return operands.count == 1 ? operands[0] : operands.isEmpty ? .constant(false) : .or(operands)
    }

    /// `a AND b`, leaving out a missing side.
    static func both(_ a: PredicateTree?, _ b: PredicateTree) -> PredicateTree {
        guard let a else { return b }
        return .and([a, b])
    }

    /// `op` over every pair of alternatives of two operands.
    func compare(_ lhs: TranslatedExpression, _ op: ComparisonOperator, _ rhs: TranslatedExpression,
                 options: ComparisonOptions = []) throws -> PredicateTree {
        let left = try values(lhs), right = try values(rhs)
        var operands: [PredicateTree] = []
        for l in left {
            for r in right {
                let test = Self.folded(.comparison(Comparison(l.expression, op, options: options, r.expression)))
                let condition: PredicateTree? = switch (l.condition, r.condition) {
                case (nil, nil): nil
                case (let a?, nil): a
                case (nil, let b?): b
                case (let a?, let b?): .and([a, b])
                }
                operands.append(Self.both(condition, test))
                if operands.count > Self.maximumAlternatives { _ = try Self.either(operands) }
            }
        }
        return try Self.either(operands)
    }

    /// A comparison of two literals (from `??` and `?:`) decided here, by the language's own
    /// evaluator: a database would compare two untyped parameters as it pleases (PostgreSQL as text).
    static func folded(_ test: PredicateTree) -> PredicateTree {
        guard case .comparison(let comparison) = test, case .literal = comparison.left, case .literal = comparison.right,
              let value = try? test.evaluate(with: MemoryObject(id: .null)) else { return test }
        return .constant(value)
    }

    /// Equality, Swift's: of conditions too, and of optional conditions with true or false.
    func equal(_ lhs: TranslatedExpression, _ rhs: TranslatedExpression) throws -> PredicateTree {
        switch (lhs, rhs) {
        case (.optionalPredicate(let present, let p), .constant(let value)),
             (.constant(let value), .optionalPredicate(let present, let p)):
            switch Self.optionalBool(value) {
            case .some(true): return .and([present, p])
            case .some(false): return .and([present, .not(p)])
            case .none: return .not(present)
            }
        case (.optionalPredicate(let present, _), .null), (.null, .optionalPredicate(let present, _)):
            return .not(present)
        case (.predicate, _), (_, .predicate):
            let a = try predicate(lhs), b = try predicate(rhs)
            if case .constant(let value) = b { return value ? a : .not(a) }
            if case .constant(let value) = a { return value ? b : .not(b) }
            return .or([.and([a, b]), .and([.not(a), .not(b)])])
        default:
            return try compare(lhs, .equal, rhs)
        }
    }

    /// True, false, or nil for nil (a Bool? captured value).
    static func optionalBool(_ value: Any) -> Bool? {
        if let optional = value as? any OptionalPredicateValue {
            return optional.wrappedPredicateValue.flatMap { $0 as? Bool }
        }
        return value as? Bool
    }

    // MARK: Captured values

    /// A captured Swift value as a literal of the tree: by the engine's value conversion, a date
    /// as `CAST(seconds, "NSDate")` so that it compares with each column by the column's own
    /// convention, an enum by its raw value, an array as a list (for `contains`).
    static func literal(_ value: Any) throws -> ExpressionTree {
        if let optional = value as? any OptionalPredicateValue {
            guard let wrapped = optional.wrappedPredicateValue else { return .literal(.null) }
            return try literal(wrapped)
        }
        switch value {
        case let date as Date: return .cast(.literal(.real(date.timeIntervalSinceReferenceDate)), "NSDate")
        case let bool as Bool: return .literal(.integer(bool ? 1 : 0))
        case let text as String: return .literal(.text(text))
        case let text as Substring: return .literal(.text(String(text)))
        case let character as Character: return .literal(.text(String(character)))
        case let decimal as Decimal:
            // Compared as a number (the text form of the engine's conversion would compare as
            // text): exactly on PostgreSQL, as its nearest double on SQLite.
            return .literal(ExactDecimal(decimal.description).map(Value.decimal) ?? .real(Double(decimal.description) ?? .nan))
        case let number as any BinaryInteger:
            guard let exact = Int64(exactly: number) else {
                throw PortalPredicateError(.unsupported, "the integer \(number) does not fit a database integer (64 bits)")
            }
            return .literal(.integer(exact))
        case let number as any BinaryFloatingPoint: return .literal(.real(Double(number)))
        case let convertible as any DatabaseValueConvertible: return .literal(convertible.databaseValue)
        case let raw as any RawRepresentable: return try literal(raw.rawValue)
        case let list as any Sequence:
            var elements: [ExpressionTree] = []
            for element in list { elements.append(try literal(element)) }
            return .aggregate(elements)
        default:
            throw PortalPredicateError(.unsupported, "a captured value of type \(type(of: value)) has no database value")
        }
    }
}
