import PortalPredicate

/// Random predicates over the `owner` entity of `DifferentialWorld`, in the shapes both sides must agree on.
public struct PredicateGenerator {
    public var random: SeededRandom
    /// True for a typed database (PostgreSQL): numbers are compared with numbers only, and no
    /// text holds NUL, which PostgreSQL's text cannot. SQLite's own mixing of types is left out.
    public var wellTyped = false
    /// True while generating a SUBQUERY's predicate, where the owner's keys do not exist.
    var inElement = false

    public static let textKeys = ["name", "note"]
    public static let numberKeys = ["score", "ratio"]
    static let likePatterns: [Value] = ["*", "a*", "*a", "?", "a?", "*ü*", "A*", "*b", "?*?", "", "a*b", "*\u{0}*",
                                        "z?rich", "*Z*"]
    static let regexes: [Value] = [".*", "a.*", "(?i)a.*", ".*ü.*", "[a-z]+", "\\d+", "(?i)zurich|antonio",
                                   ".*\\s.*"]
    static let textOperators: [ComparisonOperator] = [.equal, .notEqual, .less, .greaterOrEqual, .contains, .beginsWith,
                                                      .endsWith, .like, .matches, .in]
    static let numberOperators: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater,
                                                        .greaterOrEqual, .between, .in]

    public init(random: SeededRandom, wellTyped: Bool = false) {
        self.random = random
        self.wellTyped = wellTyped
    }

    /// The texts to compare with (without NUL when `wellTyped`).
    var texts: [Value] { wellTyped ? DifferentialValues.texts.filter(Self.holdsNoNUL) : DifferentialValues.texts }

    static func holdsNoNUL(_ value: Value) -> Bool {
        if case .text(let text) = value { !text.unicodeScalars.contains("\u{0}") } else { true }
    }

    public mutating func predicate(depth: Int) -> PredicateTree {
        if depth >= 3 || random.chance(40) {
            return random.chance(3) ? .constant(random.chance(50)) : .comparison(comparison())
        }
        // Chains are flat lists of two to four operands, runs of NOT happen.
        switch random.int(0...2) {
        case 0: return .not(predicate(depth: depth + (random.chance(30) ? 0 : 1)))
        case 1: return .and((0..<random.int(2...4)).map { _ in predicate(depth: depth + 1) })
        default: return .or((0..<random.int(2...4)).map { _ in predicate(depth: depth + 1) })
        }
    }

    mutating func comparison() -> Comparison {
        switch random.int(0...13) {
        case 13:
            // One element of a to-many path, by id order.
            let index: SubscriptIndex = random.pick([.first, .last, .expression(.literal(.integer(Int64(random.int(-1...3)))))])
            switch random.int(0...3) {
            case 0: return textComparison(.member(.subscript(.key("items"), index), "label"))
            case 1: return numberComparison(.subscript(.member(.key("items"), "qty"), index))
            case 2: return textComparison(.member(.subscript(.member(.key("team"), "owners"), index), "name"))
            default: return numberComparison(.subscript(.key("items"), index))
            }
        case 12:
            // Through a to-one relationship to a to-many one.
            switch random.int(0...2) {
            case 0:
                // Without a quantifier, a missing team makes the path NULL (not an empty collection).
                var comparison = textComparison(.member(.member(.key("team"), "owners"), "name"))
                comparison.quantifier = random.pick([nil, Quantifier.any, Quantifier.all, Quantifier.none])
                return comparison
            case 1: return numberComparison(.member(.member(.key("team"), "owners"), "@count"))
            default: return numberComparison(.member(.member(.member(.key("team"), "owners"), "score"), "@max"))
            }
        case 0, 1, 2: return textComparison(.key(random.pick(Self.textKeys)))
        case 3, 4: return numberComparison(.key(random.pick(Self.numberKeys)))
        case 5:
            return random.chance(50) ? textComparison(.member(.key("team"), "title"))
                : numberComparison(.member(.key("team"), "rank"))
        case 6:
            var comparison = random.chance(50) ? textComparison(.member(.key("items"), "label"))
                : numberComparison(.member(.key("items"), "qty"))
            comparison.quantifier = random.pick([nil, Quantifier.any, Quantifier.all, Quantifier.none])
            return comparison
        case 7: return numberComparison(aggregate())
        case 8:
            let overItems = random.chance(70)
            let collection: ExpressionTree = overItems ? .key("items") : .member(.key("team"), "owners")
            inElement = true
            let inner = elementPredicate(depth: 0, overItems: overItems)
            inElement = false
            return Comparison(.member(.subquery(collection: collection, variable: "x", predicate: inner), "@count"),
                              random.pick([.greater, .equal, .greaterOrEqual]), .literal(.integer(Int64(random.int(0...2)))))
        case 9:
            return random.chance(50) ? Comparison(.self, .equal, .literal(.integer(Int64(random.int(0...15)))))
                : Comparison(.self, .in, .aggregate((0..<3).map { _ in .literal(.integer(Int64(random.int(0...15)))) }))
        case 10: return numberComparison(arithmetic())
        default:
            let date = ExpressionTree.cast(.literal(random.pick(["2021-01-01", "2020-12-31 23:59:59", "2021-06-15T12:00:00"])),
                                       "NSDate")
            // `day` (DATETIME) holds text and numbers; `note` (TEXT) only text.
            return Comparison(.key(random.pick(["day", "day", "note"])),
                              random.pick([.equal, .notEqual, .less, .greater, .greaterOrEqual]), date)
        }
    }

    /// A SUBQUERY's predicate: on `$x`, on bare keys (which name the element's attributes) and on
    /// `$x` itself (the element's id).
    mutating func elementPredicate(depth: Int, overItems: Bool) -> PredicateTree {
        if depth < 2, random.chance(30) {
            switch random.int(0...2) {
            case 0: return .not(elementPredicate(depth: depth + 1, overItems: overItems))
            case 1: return .and(elementPredicate(depth: depth + 1, overItems: overItems),
                                elementPredicate(depth: depth + 1, overItems: overItems))
            default: return .or(elementPredicate(depth: depth + 1, overItems: overItems),
                                elementPredicate(depth: depth + 1, overItems: overItems))
            }
        }
        let (text, number) = overItems ? ("label", "qty") : ("name", "score")
        switch random.int(0...4) {
        case 0: return .comparison(textComparison(.member(.variable("x"), text)))
        case 1: return .comparison(numberComparison(.member(.variable("x"), number)))
        case 2: return .comparison(textComparison(.key(text)))
        case 3: return .comparison(Comparison(.variable("x"), random.pick([.equal, .greater, .lessOrEqual]),
                                              .literal(.integer(Int64(random.int(0...40))))))
        default: return .comparison(numberComparison(.key(number)))
        }
    }

    mutating func textComparison(_ left: ExpressionTree) -> Comparison {
        let op = random.pick(Self.textOperators)
        // `[l]` alone and combined: Unicode collation order.
        var options: ComparisonOptions = random.pick([[], [], [.caseInsensitive], [.diacriticInsensitive],
                                                      [.caseInsensitive, .diacriticInsensitive], [.normalized],
                                                      [.localeSensitive], [.caseInsensitive, .localeSensitive],
                                                      [.caseInsensitive, .diacriticInsensitive, .localeSensitive]])
        // PostgreSQL's ICU collation tells canonically equivalent texts apart where SQLite's `[l]`
        // does not (docs/predicates.md, "On PostgreSQL"): `[l]` is SQLite's alone.
        if wellTyped { options.remove(.localeSensitive) }
        // Functions apply to single values (the evaluator does not map them over collections).
        let single = if case .member(.key("items"), _) = left { false }
            else if case .member(.member(.key("team"), "owners"), _) = left { false } else { true }
        let subject = single && random.chance(10) ? ExpressionTree.function(random.pick(["lowercase", "uppercase"]), [left]) : left
        // Inside SUBQUERY, bare keys name the element's attributes, which are not the owner's.
        let sibling = if inElement { false } else if case .member(.key("items"), _) = left { false }
            else if case .member(.variable, _) = left { false } else { true }
        let right: ExpressionTree
        switch op {
        case .like: right = .literal(random.pick(wellTyped ? Self.likePatterns.filter(Self.holdsNoNUL) : Self.likePatterns))
        case .matches: right = .literal(random.pick(Self.regexes))
        case .in: right = .aggregate((0..<random.int(0...3)).map { _ in .literal(random.pick(texts)) })
        case .contains, .beginsWith, .endsWith:
            right = sibling && random.chance(10) ? .key(random.pick(Self.textKeys)) : .literal(random.pick(texts))
        default:
            right = sibling && random.chance(10) ? .key(random.pick(Self.textKeys)) : .literal(random.pick(texts))
        }
        return Comparison(subject, op, options: options, right)
    }

    mutating func numberComparison(_ left: ExpressionTree) -> Comparison {
        let op = random.pick(Self.numberOperators)
        let right: ExpressionTree
        switch op {
        case .between:
            let a = random.pick(DifferentialValues.numbers), b = random.pick(DifferentialValues.numbers)
            right = .aggregate([.literal(a), .literal(b)])
        case .in:
            right = .aggregate((0..<random.int(0...3)).map { _ in .literal(random.pick(DifferentialValues.numbers)) })
        default:
            right = !wellTyped && random.chance(10) ? .literal(random.pick(["5", "abc", "2.5"])) : .literal(random.pick(DifferentialValues.numbers))
        }
        return Comparison(left, op, right)
    }

    mutating func aggregate() -> ExpressionTree {
        switch random.int(0...6) {
        case 0: return .member(.key("items"), "@count")
        case 1: return .subscript(.key("items"), .size)
        case 2: return .function("count", [.key("items")])
        case 3: return .member(.member(.key("items"), "qty"), random.pick(["@sum", "@avg", "@min", "@max"]))
        case 4: return .function(random.pick(["sum", "min", "max", "average"]), [.member(.key("items"), "qty")])
        case 5: return .function("length", [.key(random.pick(Self.textKeys))])
        default:
            // A text aggregate, which only SQLite compares with numbers (by type order).
            if wellTyped { return .member(.key("items"), "@count") }
            return .member(.member(.key("items"), random.pick(["@min", "@max"])), "label")
        }
    }

    mutating func arithmetic() -> ExpressionTree {
        let key = ExpressionTree.key(random.pick(Self.numberKeys))
        let constant = ExpressionTree.literal(random.pick([1, 2, 3, -2, 0.5, 0]))
        switch random.int(0...9) {
        case 8, 9:
            // Bitwise operators on integers, reals and NULL, shifts either way (text
            // is refused by the compiler, as in all arithmetic: SetValueTests).
            let op = random.pick([ArithmeticOperator.bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight])
            let other: ExpressionTree = random.chance(30) ? .key(random.pick(Self.numberKeys))
                : .literal(random.pick([1, 3, 4, -1, 0, 2.5, 63, 64, -65]))
            return random.chance(80) ? .arithmetic(key, op, other) : .arithmetic(other, op, key)
        case 6: return .cast(.key(random.pick(Self.textKeys + Self.numberKeys)), "NSNumber")
        case 7:
            // A real as text reads 1.0 in SQLite, 1 in PostgreSQL (docs/predicates.md).
            return .function("length", [.cast(wellTyped ? .key("score") : key, "NSString")])
        case 0: return .arithmetic(key, .add, constant)
        case 1: return .arithmetic(key, .subtract, .key(random.pick(Self.numberKeys)))
        case 2: return .arithmetic(key, .multiply, constant)
        case 3: return .arithmetic(key, .divide, constant)
        case 4: return .negate(key)
        default: return .function("abs", [key])
        }
    }
}
