import Testing
@testable import PortalEngine

/// Random predicates over random data: the compiled SQL and PortalPredicate's in-memory evaluator
/// must select the same entities. Seeded; a mismatch prints the seed, the predicate and the SQL.
@Suite struct CompilerDifferentialTests {
    static let worlds = 25
    static let casesPerWorld = 420

    /// Each dialect's output runs: SQLite's own, and the standard spellings a server dialect uses.
    static let dialects: [any SQLDialect] = [SQLiteDialect(), StandardSpellingDialect()]

    @Test(arguments: 0..<2) func compiledSQLAgreesWithTheEvaluator(dialectIndex: Int) throws {
        let dialect = Self.dialects[dialectIndex]
        var cases = 0, mismatches = 0, bothRejected = 0
        for world in 0..<Self.worlds {
            let seed = UInt64(0x5EED_0000 + world)
            var random = SeededRandom(seed: seed)
            let data = try DifferentialWorld(random: &random)
            var generator = PredicateGenerator(random: random)
            for index in 0..<Self.casesPerWorld {
                let predicate = generator.predicate(depth: 0)
                cases += 1
                let outcome = try data.compare(predicate, dialect: dialect)
                switch outcome {
                case .agree: break
                case .bothRejected: bothRejected += 1
                case .differ(let message):
                    mismatches += 1
                    if mismatches <= 5 {
                        Issue.record("seed \(seed) case \(index): \(predicate)\n\(message)")
                    }
                }
            }
        }
        #expect(mismatches == 0)
        #expect(cases >= 10_000)
        // Rejections are fine only when rare: the generator should make valid predicates.
        #expect(bothRejected < cases / 20)
    }
}

/// A small random database, and the same rows as evaluator objects.
struct DifferentialWorld {
    let database: TestDatabase
    let schema: Schema
    let owner: EntityDescription
    let objects: [MemoryObject]

    static let texts: [Value] = [
        "", "a", "A", "ab", "aB", "Ab", "abc", "b", "Zürich", "zurich", "ZURICH", "zürich", "Antônio", "antonio",
        "ANTONIO", "straße", "STRASSE", "strasse", "naïve", "naive", "日本", "🙂", "x y", "a*b", "a?b", "50", "5",
        "nul\u{0}byte", "\u{E9}", "e\u{301}", "É", "-3", "2021-01-01 00:00:00", "2020-12-31 23:59:59", .null,
    ]
    static let numbers: [Value] = [0, 1, 2, 3, 5, 10, -1, -7, 42, 2.5, -0.5, 100, .null, .null]

    init(random: inout SeededRandom) throws {
        database = try TestDatabase()
        try database.execute("""
            CREATE TABLE team (id INTEGER PRIMARY KEY, title TEXT, rank INTEGER);
            CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score INTEGER, ratio REAL,
                                day DATETIME, teamId INTEGER REFERENCES team);
            CREATE TABLE item (id INTEGER PRIMARY KEY, ownerId INTEGER REFERENCES owner, label TEXT, qty INTEGER);
            CREATE INDEX owner_name ON owner (name);
            CREATE INDEX item_owner ON item (ownerId);
            """)
        var teams: [Int64: MemoryObject] = [:]
        for id in 1...4 {
            let row: [Value] = [.integer(Int64(id)), random.pick(Self.texts), random.pick(Self.numbers)]
            _ = try database.query("INSERT INTO team VALUES (?, ?, ?)", row)
            teams[Int64(id)] = MemoryObject(id: row[0], attributes: ["id": row[0], "title": row[1], "rank": row[2]],
                                            affinities: ["id": .integer, "title": .text, "rank": .integer])
        }
        let ownerCount = 14
        var items: [Int64: [MemoryObject]] = [:]
        for id in 1...40 {
            let ownerId: Value = random.chance(10) ? .null : .integer(Int64(random.int(1...ownerCount)))
            let qty: Value = random.chance(5) ? "x7" : random.pick(Self.numbers)
            let row: [Value] = [.integer(Int64(id)), ownerId, random.pick(Self.texts), qty]
            _ = try database.query("INSERT INTO item VALUES (?, ?, ?, ?)", row)
            // Read back: the column's affinity may have converted what was inserted.
            let stored = try database.query("SELECT id, ownerId, label, qty FROM item WHERE id = ?", [row[0]])[0]
            let object = MemoryObject(id: stored[0],
                                      attributes: ["id": stored[0], "ownerId": stored[1], "label": stored[2], "qty": stored[3]],
                                      affinities: ["id": .integer, "ownerId": .integer, "label": .text, "qty": .integer])
            if case .integer(let owner) = ownerId { items[owner, default: []].append(object) }
        }
        var rows: [[Value]] = []
        var members: [Int64: [MemoryObject]] = [:]   // team id → its owners (without relationships)
        let names = ["id", "name", "note", "score", "ratio", "day", "teamId"]
        let affinities: [String: Affinity] = ["id": .integer, "name": .text, "note": .text, "score": .integer,
                                              "ratio": .real, "day": .numeric, "teamId": .integer]
        for id in 1...ownerCount {
            let day: Value = random.pick(["2021-01-01 00:00:00", "2020-12-31 23:59:59", "2021-06-15 12:00:00",
                                          .integer(1_609_459_200), .real(1_609_459_199.5), .null])
            let team: Value = random.chance(20) ? .null : .integer(Int64(random.int(1...4)))
            let row: [Value] = [.integer(Int64(id)), random.pick(Self.texts), random.pick(Self.texts),
                                random.chance(10) ? random.pick(Self.texts) : random.pick(Self.numbers),
                                random.pick(Self.numbers), day, team]
            _ = try database.query("INSERT INTO owner VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            let stored = try database.query("SELECT * FROM owner WHERE id = ?", [row[0]])[0]
            rows.append(stored)
            if case .integer(let team) = stored[6] {
                members[team, default: []].append(MemoryObject(id: stored[0], attributes: Self.attributes(names, stored),
                                                               affinities: affinities))
            }
        }
        var objects: [MemoryObject] = []
        for stored in rows {
            var teamObject: MemoryObject?
            if case .integer(let team) = stored[6], var object = teams[team] {
                object.toManyRelationships["owners"] = members[team] ?? []
                teamObject = object
            }
            let id = if case .integer(let id) = stored[0] { id } else { Int64(0) }
            objects.append(MemoryObject(id: stored[0], attributes: Self.attributes(names, stored), affinities: affinities,
                                        toOne: ["team": teamObject], toMany: ["items": items[id] ?? []]))
        }
        self.objects = objects
        schema = try database.schema()
        guard let owner = schema.entity(named: "owner") else { throw TestFailure("no owner entity") }
        self.owner = owner
    }

    static func attributes(_ names: [String], _ values: [Value]) -> [String: Value] {
        var attributes: [String: Value] = [:]
        for (name, value) in zip(names, values) { attributes[name] = value }
        return attributes
    }

    enum Outcome { case agree, bothRejected, differ(String) }

    func compare(_ predicate: Predicate, dialect: any SQLDialect = SQLiteDialect()) throws -> Outcome {
        var expected: [Value] = []
        var evaluatorError: PredicateError?
        do {
            for object in objects where try predicate.evaluate(with: object) { expected.append(object.id) }
        } catch {
            evaluatorError = error
        }
        let filter: CompiledFilter
        do {
            filter = try PredicateCompiler.compile(Query(predicate: predicate), entity: owner, schema: schema, alias: "t0",
                                                   dialect: dialect)
        } catch let error as PredicateError {
            return evaluatorError == nil ? .differ("compiler rejected it: \(error)") : .bothRejected
        }
        if let evaluatorError { return .differ("evaluator rejected it: \(evaluatorError)\nSQL: \(filter.condition.sql)") }
        let select = Select(owner, columns: .expressions([SQLFragment("t0.id")]), condition: filter.condition,
                            order: SQLFragment("t0.id")).rendered(in: dialect)
        let found = try database.column(select.sql, select.bindings)
        if found == expected { return .agree }
        return .differ("SQL: \(filter.condition.sql)\nbindings: \(filter.condition.bindings)\n"
            + "SQL selects \(found.map(showValue))\nevaluator selects \(expected.map(showValue))")
    }
}

/// A value as the mismatch report shows it.
func showValue(_ value: Value) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let i): "\(i)"
    case .real(let r): "\(r)"
    case .text(let t): "'\(t)'"
    case .blob(let b): "blob(\(b.count))"
    }
}

/// Random predicates over the `owner` entity of `DifferentialWorld`, in the shapes both sides must agree on.
struct PredicateGenerator {
    var random: SeededRandom
    /// True while generating a SUBQUERY's predicate, where the owner's keys do not exist.
    var inElement = false

    static let textKeys = ["name", "note"]
    static let numberKeys = ["score", "ratio"]
    static let likePatterns: [Value] = ["*", "a*", "*a", "?", "a?", "*ü*", "A*", "*b", "?*?", "", "a*b", "*\u{0}*",
                                        "z?rich", "*Z*"]
    static let regexes: [Value] = [".*", "a.*", "(?i)a.*", ".*ü.*", "[a-z]+", "\\d+", "(?i)zurich|antonio",
                                   ".*\\s.*"]
    static let textOperators: [ComparisonOperator] = [.equal, .notEqual, .less, .greaterOrEqual, .contains, .beginsWith,
                                                      .endsWith, .like, .matches, .in]
    static let numberOperators: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater,
                                                        .greaterOrEqual, .between, .in]

    mutating func predicate(depth: Int) -> Predicate {
        if depth >= 3 || random.chance(40) {
            return random.chance(3) ? .constant(random.chance(50)) : .comparison(comparison())
        }
        // Chains are flat lists of two to four operands (issue 10 point 6), runs of NOT happen.
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
            let collection: Expression = overItems ? .key("items") : .member(.key("team"), "owners")
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
            let date = Expression.cast(.literal(random.pick(["2021-01-01", "2020-12-31 23:59:59", "2021-06-15T12:00:00"])),
                                       "NSDate")
            // `day` (DATETIME) holds text and numbers; `note` (TEXT) only text.
            return Comparison(.key(random.pick(["day", "day", "note"])),
                              random.pick([.equal, .notEqual, .less, .greater, .greaterOrEqual]), date)
        }
    }

    /// A SUBQUERY's predicate: on `$x`, on bare keys (which name the element's attributes) and on
    /// `$x` itself (the element's id).
    mutating func elementPredicate(depth: Int, overItems: Bool) -> Predicate {
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

    mutating func textComparison(_ left: Expression) -> Comparison {
        let op = random.pick(Self.textOperators)
        // `[l]` alone and combined (issue 12): Unicode collation order.
        let options: ComparisonOptions = random.pick([[], [], [.caseInsensitive], [.diacriticInsensitive],
                                                      [.caseInsensitive, .diacriticInsensitive], [.normalized],
                                                      [.localeSensitive], [.caseInsensitive, .localeSensitive],
                                                      [.caseInsensitive, .diacriticInsensitive, .localeSensitive]])
        // Functions apply to single values (the evaluator does not map them over collections).
        let single = if case .member(.key("items"), _) = left { false }
            else if case .member(.member(.key("team"), "owners"), _) = left { false } else { true }
        let subject = single && random.chance(10) ? Expression.function(random.pick(["lowercase", "uppercase"]), [left]) : left
        // Inside SUBQUERY, bare keys name the element's attributes, which are not the owner's.
        let sibling = if inElement { false } else if case .member(.key("items"), _) = left { false }
            else if case .member(.variable, _) = left { false } else { true }
        let right: Expression
        switch op {
        case .like: right = .literal(random.pick(Self.likePatterns))
        case .matches: right = .literal(random.pick(Self.regexes))
        case .in: right = .aggregate((0..<random.int(0...3)).map { _ in .literal(random.pick(DifferentialWorld.texts)) })
        case .contains, .beginsWith, .endsWith:
            right = sibling && random.chance(10) ? .key(random.pick(Self.textKeys)) : .literal(random.pick(DifferentialWorld.texts))
        default:
            right = sibling && random.chance(10) ? .key(random.pick(Self.textKeys)) : .literal(random.pick(DifferentialWorld.texts))
        }
        return Comparison(subject, op, options: options, right)
    }

    mutating func numberComparison(_ left: Expression) -> Comparison {
        let op = random.pick(Self.numberOperators)
        let right: Expression
        switch op {
        case .between:
            let a = random.pick(DifferentialWorld.numbers), b = random.pick(DifferentialWorld.numbers)
            right = .aggregate([.literal(a), .literal(b)])
        case .in:
            right = .aggregate((0..<random.int(0...3)).map { _ in .literal(random.pick(DifferentialWorld.numbers)) })
        default:
            right = random.chance(10) ? .literal(random.pick(["5", "abc", "2.5"])) : .literal(random.pick(DifferentialWorld.numbers))
        }
        return Comparison(left, op, right)
    }

    mutating func aggregate() -> Expression {
        switch random.int(0...6) {
        case 0: return .member(.key("items"), "@count")
        case 1: return .subscript(.key("items"), .size)
        case 2: return .function("count", [.key("items")])
        case 3: return .member(.member(.key("items"), "qty"), random.pick(["@sum", "@avg", "@min", "@max"]))
        case 4: return .function(random.pick(["sum", "min", "max", "average"]), [.member(.key("items"), "qty")])
        case 5: return .function("length", [.key(random.pick(Self.textKeys))])
        default: return .member(.member(.key("items"), random.pick(["@min", "@max"])), "label")
        }
    }

    mutating func arithmetic() -> Expression {
        let key = Expression.key(random.pick(Self.numberKeys))
        let constant = Expression.literal(random.pick([1, 2, 3, -2, 0.5, 0]))
        switch random.int(0...9) {
        case 8, 9:
            // Bitwise operators (issue 12) on integers, reals and NULL, shifts either way (text
            // is refused by the compiler, as in all arithmetic: SetValueTests).
            let op = random.pick([ArithmeticOperator.bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight])
            let other: Expression = random.chance(30) ? .key(random.pick(Self.numberKeys))
                : .literal(random.pick([1, 3, 4, -1, 0, 2.5, 63, 64, -65]))
            return random.chance(80) ? .arithmetic(key, op, other) : .arithmetic(other, op, key)
        case 6: return .cast(.key(random.pick(Self.textKeys + Self.numberKeys)), "NSNumber")
        case 7: return .function("length", [.cast(key, "NSString")])
        case 0: return .arithmetic(key, .add, constant)
        case 1: return .arithmetic(key, .subtract, .key(random.pick(Self.numberKeys)))
        case 2: return .arithmetic(key, .multiply, constant)
        case 3: return .arithmetic(key, .divide, constant)
        case 4: return .negate(key)
        default: return .function("abs", [key])
        }
    }
}

/// Issue 12's forms that exist only in the text (Apple's `name:(args)`, `%K` after a dot and in
/// SUBQUERY, printf specifiers) and the ones above written as text: parsed, then the compiled
/// SQL against the evaluator on every world.
@Suite struct TextFormDifferentialTests {
    static let cases: [(String, [Argument])] = [
        ("lowercase:(name) == 'zürich'", []),
        ("uppercase:(note) BEGINSWITH 'A'", []),
        ("sum:(items.qty) > 3 OR count:(items) == 0", []),
        ("abs:(score) >= %lu", [.value(2)]),
        ("ANY items.%K == %@", [.value("label"), .value("a")]),
        ("%K.%K BEGINSWITH[cd] %@", [.value("team"), .value("title"), .value("a")]),
        ("SUBQUERY(%K, $x, $x.%K >= %hd).@count > 0", [.value("items"), .value("qty"), .value(2)]),
        ("ratio > %e AND score < %lf", [.value(.real(0.1)), .value(.real(40))]),
        ("score <= %lld OR ratio == %la", [.value(3), .value(.real(2.5))]),
        ("(score & %d) != 0", [.value(1)]),
        ("1 << 3 == 8 AND score | 1 == 1 AND score ^ 2 > 0 AND score >> 1 <= 5", []),
        ("score & 4 | 1 == 5 OR score << -1 == 0", []),
        ("name IN {nil, 'a'} OR note IN {NULL}", []),
        ("name BEGINSWITH '' OR note ENDSWITH[cd] '' OR name CONTAINS[l] ''", []),
        ("name >[l] 'b' AND note <=[cl] 'Z'", []),
        (#"name ==[l] 'e\u0301' OR name BETWEEN[l] {'a', 'B'}"#, []),
        ("team.title IN[cl] {nil, 'zurich'}", []),
    ]

    @Test(arguments: 0..<2) func issue12_textFormsAgreeWithTheEvaluator(dialectIndex: Int) throws {
        let dialect = CompilerDifferentialTests.dialects[dialectIndex]
        for world in 0..<8 {
            var random = SeededRandom(seed: UInt64(0x7E47_0000 + world))
            let data = try DifferentialWorld(random: &random)
            for (text, arguments) in Self.cases {
                let predicate = try Predicate.parse(text, arguments: arguments)
                switch try data.compare(predicate, dialect: dialect) {
                case .agree: break
                case .bothRejected: Issue.record("both rejected \(text)")
                case .differ(let message): Issue.record("world \(world): \(text)\n\(message)")
                }
            }
        }
    }
}

/// The seeded generator of the differential, robustness and stress tests.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...(choices.count - 1))] }
}
