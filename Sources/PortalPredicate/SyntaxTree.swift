/// The syntax tree of a predicate in Apple's NSPredicate format-string language.
///
/// Trees are plain values: `Equatable`, `Hashable`, `Sendable`. The parser builds them, the
/// printer turns them back into canonical text (`parse(print(t)) == t`), the evaluator runs them
/// over rows in memory, and PortalEngine's compiler turns them into SQLite SQL.
public indirect enum PredicateTree: Sendable, Hashable {
    /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
    case constant(Bool)
    /// `NOT p` (or `!p`).
    case not(PredicateTree)
    /// `a AND b AND c` (or `&&`): one list of two or more operands, never a left-nested tree,
    /// so that a chain of any length is one level deep (printer, evaluator and compiler recurse
    /// on depth). Parentheses keep their grouping: `(a AND b) AND c` is `.and([.and([a, b]), c])`.
    case and([PredicateTree])
    /// `a OR b OR c` (or `||`): one list, like `and`.
    case or([PredicateTree])
    /// One comparison.
    case comparison(Comparison)
}

extension PredicateTree {
    /// `a AND b` as a two-operand list.
    public static func and(_ a: PredicateTree, _ b: PredicateTree) -> PredicateTree { .and([a, b]) }
    /// `a OR b` as a two-operand list.
    public static func or(_ a: PredicateTree, _ b: PredicateTree) -> PredicateTree { .or([a, b]) }
}

/// `[quantifier] left operator[options] right`.
public struct Comparison: Sendable, Hashable {
    /// `ANY`, `ALL` or `NONE` before the left side; nil when there is none.
    public var quantifier: Quantifier?
    /// The left operand.
    public var left: ExpressionTree
    /// The operator.
    public var op: ComparisonOperator
    /// The bracketed options after the operator (`[cd]`).
    public var options: ComparisonOptions
    /// The right operand.
    public var right: ExpressionTree

    /// `quantifier left op[options] right`.
    public init(quantifier: Quantifier? = nil, _ left: ExpressionTree, _ op: ComparisonOperator,
                options: ComparisonOptions = [], _ right: ExpressionTree) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.options = options
        self.right = right
    }
}

/// `ANY` (and its synonym `SOME`), `ALL`, `NONE`.
public enum Quantifier: String, Sendable, Hashable, CaseIterable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// The comparison operators; each synonym (`=`, `<>`, `=<`, `=>`) parses to one case.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
}

/// `[c]`, `[d]`, `[n]`, `[l]` and their combinations (`[cd]`, `[cl]`, …).
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// The options as bits: 1 `c`, 2 `d`, 4 `n`, 8 `l`.
    public let rawValue: UInt8
    /// The options of these bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: Unicode-aware case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: compare bytes as they are; supersedes c and d.
    public static let normalized = ComparisonOptions(rawValue: 4)
    /// `[l]`: locale-aware: text compares in Unicode collation order (root locale).
    public static let localeSensitive = ComparisonOptions(rawValue: 8)
}

/// An expression: the operand of a comparison.
public indirect enum ExpressionTree: Sendable, Hashable {
    /// A literal (string, number, TRUE/YES as 1, FALSE/NO as 0, NULL/NIL) or a substituted `%@`.
    case literal(Value)
    /// `SELF`: the entity's primary id.
    case `self`
    /// `$name`.
    case variable(String)
    /// An identifier at the root of a key path (`#`-escapes removed), or `@count`-style key.
    case key(String)
    /// `base.key`; `key` may be an aggregate such as `@count`, `@sum`, `@avg`, `@min`, `@max`.
    case member(ExpressionTree, String)
    /// `base[FIRST]`, `base[LAST]`, `base[SIZE]`, `base[expr]`.
    case `subscript`(ExpressionTree, SubscriptIndex)
    /// `{a, b, c}`.
    case aggregate([ExpressionTree])
    /// `name(arguments)`: lowercase, uppercase, abs, sqrt, floor, ceiling, trunc, ln, log, exp,
    /// now, length, sum, count, min, max, average. Names are stored lowercased.
    case function(String, [ExpressionTree])
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: ExpressionTree, variable: String, predicate: PredicateTree)
    /// `CAST(expression, "type")`.
    case cast(ExpressionTree, String)
    /// `left op right` for `+ - * / **` and the bitwise `& | ^ << >>`.
    case arithmetic(ExpressionTree, ArithmeticOperator, ExpressionTree)
    /// Unary minus of a non-literal (a negative number literal is `.literal`).
    case negate(ExpressionTree)
}

/// What stands between the brackets of a subscript.
public indirect enum SubscriptIndex: Sendable, Hashable {
    /// `[FIRST]`: the first element.
    case first
    /// `[LAST]`: the last element.
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[expr]`: the element at a position.
    case expression(ExpressionTree)
}

/// `+ - * / **`, and the bitwise operators on integers `& | ^ << >>` (Apple's, with C's
/// relative precedence: `<< >>` bind tighter than `&`, then `^`, then `|`).
public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case power = "**"
    case bitwiseAnd = "&"
    case bitwiseOr = "|"
    case bitwiseXor = "^"
    case shiftLeft = "<<"
    case shiftRight = ">>"

    /// True for `& | ^ << >>`.
    public var isBitwise: Bool {
        switch self {
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight: return true
        case .add, .subtract, .multiply, .divide, .power: return false
        }
    }
}

extension ArithmeticOperator {
    /// How many precedence levels the operators have.
    static let levels = 7

    /// The operator's precedence, loosest first (0) to tightest: `|`, `^`, `&`, shifts,
    /// additive, multiplicative, power; all left-associative. The bitwise ones keep C's order
    /// among themselves and bind tighter than comparisons. A switch, not a table: a table's
    /// first use cost every start a run-time conformance lookup.
    var level: Int {
        switch self {
        case .bitwiseOr: 0
        case .bitwiseXor: 1
        case .bitwiseAnd: 2
        case .shiftLeft, .shiftRight: 3
        case .add, .subtract: 4
        case .multiply, .divide: 5
        case .power: 6
        }
    }
}

/// A predicate with Realm's trailing `SORT(…)` and `LIMIT(…)` clauses.
public struct Query: Sendable, Hashable {
    /// The filter.
    public var predicate: PredicateTree
    /// The keys of `SORT(…)`; empty when there is none.
    public var sort: [QuerySortKey]
    /// The count of `LIMIT(…)`; nil when there is none.
    public var limit: Int?

    /// A query of `predicate` with optional sort keys and limit.
    public init(predicate: PredicateTree, sort: [QuerySortKey] = [], limit: Int? = nil) {
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }
}

/// One key of a `SORT(…)` clause.
public struct QuerySortKey: Sendable, Hashable {
    /// The key path, as its dotted parts (`["Album", "Title"]`).
    public var keyPath: [String]
    /// True for `ASC` (the default), false for `DESC`.
    public var ascending: Bool

    /// A sort by `keyPath`, ascending unless told otherwise.
    public init(keyPath: [String], ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}
