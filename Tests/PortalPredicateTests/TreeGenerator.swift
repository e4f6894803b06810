@testable import PortalPredicate

/// Random syntax trees of the shapes the parser produces (canonical trees), from a seed.
///
/// The compiler engineer's differential test (compiled SQL vs `PredicateTree.evaluate`) can copy this
/// idea: it lives in the tests on purpose, so restrict `names` and the shapes there to what a
/// schema can compile.
struct TreeGenerator {
    var random: SeededGenerator
    /// Deepest nesting of predicates and of expressions.
    var maximumDepth = 4

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

    mutating func predicate(depth: Int = 0) -> PredicateTree {
        if depth >= maximumDepth || chance(35) {
            return chance(5) ? .constant(chance(50)) : .comparison(comparison(depth: depth))
        }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .not(predicate(depth: depth + 1))
        case 1: return .and(operands(depth: depth + 1))
        default: return .or(operands(depth: depth + 1))
        }
    }

    /// Two to four operands of a chain.
    mutating func operands(depth: Int) -> [PredicateTree] {
        (0..<Int.random(in: 2...4, using: &random)).map { _ in predicate(depth: depth) }
    }

    mutating func comparison(depth: Int) -> Comparison {
        let quantifier: Quantifier? = chance(20) ? pick(Quantifier.allCases) : nil
        let options: ComparisonOptions = pick([[], [], [.caseInsensitive], [.diacriticInsensitive],
                                               [.caseInsensitive, .diacriticInsensitive], [.normalized],
                                               [.localeSensitive], [.caseInsensitive, .localeSensitive]])
        let op = pick(ComparisonOperator.allCases)
        var right = expression(depth: depth + 1)
        // The parser refuses a literal MATCHES pattern that is not a regular expression.
        if op == .matches, case .literal(.text(let pattern)) = right, TextMatching.regexProblem(pattern) != nil {
            right = .literal(.text("a.*"))
        }
        return Comparison(quantifier: quantifier, expression(depth: depth + 1), op, options: options, right)
    }

    mutating func expression(depth: Int) -> ExpressionTree {
        if depth >= maximumDepth || chance(40) { return leaf() }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return .member(expression(depth: depth + 1), name())
        case 1:
            let index: SubscriptIndex = pick([.first, .last, .size, .expression(expression(depth: depth + 1))])
            return .subscript(expression(depth: depth + 1), index)
        case 2: return .aggregate((0..<Int.random(in: 0..<4, using: &random)).map { _ in expression(depth: depth + 1) })
        case 3:
            let (name, arity) = pick(Parser.functions.sorted { $0.key < $1.key })
            return .function(name, (0..<arity.upperBound).map { _ in expression(depth: depth + 1) })
        case 4:
            return .subquery(collection: expression(depth: depth + 1), variable: name(),
                             predicate: predicate(depth: depth + 1))
        case 5: return .cast(expression(depth: depth + 1), pick(Parser.castTypes.sorted()))
        case 6, 7: return .arithmetic(expression(depth: depth + 1), pick(ArithmeticOperator.allCases), expression(depth: depth + 1))
        default:
            let operand = expression(depth: depth + 1)
            switch operand {
            case .literal(.integer), .literal(.real): return operand // the parser folds -5 into a literal
            default: return .negate(operand)
            }
        }
    }

    mutating func leaf() -> ExpressionTree {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .self
        case 1: return .variable(name())
        case 2, 3, 4: return .key(name())
        default: return .literal(value())
        }
    }

    mutating func value() -> Value {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .null
        case 1: return .integer(pick([0, 1, -1, 42, Int64.max, Int64.min, Int64.random(in: .min ... .max, using: &random)]))
        case 2:
            return .real(pick([0.5, -0.0, 0.99, 1e300, -1e-300, .infinity, -.infinity, .leastNonzeroMagnitude,
                               Double.random(in: -1e6...1e6, using: &random), 3.0]))
        case 3: return .blob((0..<Int.random(in: 0..<4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        default: return .text(text())
        }
    }

    mutating func text() -> String {
        let pieces = ["a", "Z", " ", "\"", "'", "\\", "\n", "\t", "\r", "\0", "\u{1}", "\u{7F}", "é", "e\u{301}",
                      "Ü", "ß", "😀", "%@", "$x", "#", "*", "?", "--", ";", "*/", "AND", "\u{2028}"]
        return (0..<Int.random(in: 0..<6, using: &random)).map { _ in pick(pieces) }.joined()
    }

    mutating func name() -> String {
        pick(["a", "Name", "Album", "tracks", "@count", "@sum", "@avg", "Size", "first", "AND", "select",
              "Unit Price", "", "1abc", "Zürich", "x_1", "@", "a.b", "名前", "SORT", "x\"y", "X", "NULL"])
    }
}
